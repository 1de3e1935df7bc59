import { TOU_RATES, type TouRate } from '@meterdesk/contracts';
import { Input, Radio, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { messageText } from '@/i18n/message-text';
import { rateColor } from './rate-colors';

export const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;
export const MONTH_DAY = /^\d\d-\d\d$/;
export const SPECIAL_DATE = /^(\d{4}-)?\d\d-\d\d$/;

/**
 * A time or date typed as text: it reaches the calendar once it has its form (the calendar's checks
 * then judge it); until then the input says which form it wants.
 */
export function PatternInput({
  value,
  pattern,
  formatKey,
  onCommit,
  disabled = false,
  invalid,
  testId,
  label,
  width,
}: {
  value: string;
  pattern: RegExp;
  /** The MESSAGES key naming the form. */
  formatKey: string;
  onCommit: (text: string) => void;
  disabled?: boolean;
  invalid: boolean;
  testId: string;
  label: string;
  width: number;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState(value);
  // A change made elsewhere (a switch dragged on the bar, a row removed above) shows here.
  useEffect(() => setText(value), [value]);
  const typedWrong = !pattern.test(text);
  return (
    <>
      <Input
        value={text}
        size="small"
        style={{ width }}
        aria-label={label}
        disabled={disabled}
        status={typedWrong || invalid ? 'error' : undefined}
        data-testid={testId}
        onChange={(event) => {
          const next = event.target.value.trim();
          setText(next);
          if (pattern.test(next)) onCommit(next);
        }}
        onBlur={() => setText(value)}
      />
      {typedWrong && (
        <Typography.Text type="danger" className="tou-issue" data-testid={`${testId}-format`}>
          {messageText(t, formatKey)}
        </Typography.Text>
      )}
    </>
  );
}

/** A switch's rate: four buttons in the rates' colours, each with its number. */
export function RatePicker({
  value,
  onChange,
  testId,
}: {
  value: number;
  onChange: (rate: TouRate) => void;
  testId: string;
}) {
  const { t } = useTranslation();
  return (
    <Radio.Group
      size="small"
      optionType="button"
      value={value}
      onChange={(event) => onChange(event.target.value as TouRate)}
      aria-label={t('tariffEditor.fields.rate')}
      data-testid={testId}
    >
      {TOU_RATES.map((rate) => (
        <Radio.Button
          key={rate}
          value={rate}
          aria-label={t('tariffEditor.rate', { rate })}
          data-testid={`${testId}-${rate}`}
        >
          <span className="tou-swatch" style={{ background: rateColor(rate).fill }} />
          {rate}
        </Radio.Button>
      ))}
    </Radio.Group>
  );
}
