import { ratesUsed, TOU_RATES, type TouRate } from '@meterdesk/contracts';
import { Flex, Tag, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { IssueText, useCalendar } from './calendar-context';
import { rateColor } from './rate-colors';

/** The four rates: colour and number, the price of each beside it, and which the calendar leaves unused. */
export function RateLegend({ price }: { price?: (rate: TouRate) => ReactNode }) {
  const { t } = useTranslation();
  const { calendar } = useCalendar();
  const used = new Set<number>(ratesUsed(calendar));
  return (
    <Flex vertical gap="small" data-testid="rate-legend">
      {TOU_RATES.map((rate) => {
        const color = rateColor(rate);
        return (
          <Flex key={rate} gap="small" align="center" data-testid={`legend-rate-${rate}`}>
            <span className="tou-rate-chip" style={{ background: color.fill, color: color.text }}>
              {rate}
            </span>
            <Typography.Text style={{ minWidth: 64 }}>{t('tariffEditor.rate', { rate })}</Typography.Text>
            {price?.(rate)}
            {!used.has(rate) && <Tag>{t('tariffEditor.unused')}</Tag>}
          </Flex>
        );
      })}
      <IssueText path="rates" />
    </Flex>
  );
}
