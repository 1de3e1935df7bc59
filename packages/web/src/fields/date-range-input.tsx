import { DatePicker } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { isDisabledRangeDay, keepTypedDate, presetRange, presetsWithin, toIsoMoment } from './date-range';

/** A time window as two ISO moments; picking refuses days after today and windows over `maxDays`. */
export function DateRangeInput({
  id,
  value,
  onChange,
  maxDays,
  testId,
}: {
  id?: string;
  value?: readonly [string, string] | null;
  onChange?: (value: [string, string] | null) => void;
  maxDays: number;
  testId: string;
}) {
  const { t } = useTranslation();
  const presets = useMemo(
    () =>
      presetsWithin(maxDays).map((preset) => ({ label: t(`crud.rangePresets.${preset}`), value: presetRange(preset) })),
    [t, maxDays],
  );
  const current = value ? ([dayjs(value[0]), dayjs(value[1])] as [Dayjs, Dayjs]) : null;

  return (
    <DatePicker.RangePicker
      id={id}
      data-testid={testId}
      showTime
      onKeyDown={keepTypedDate}
      value={current}
      presets={presets}
      disabledDate={(date, info) => isDisabledRangeDay(date, info.from, maxDays)}
      onChange={(dates) => onChange?.(dates?.[0] && dates[1] ? [toIsoMoment(dates[0]), toIsoMoment(dates[1])] : null)}
    />
  );
}
