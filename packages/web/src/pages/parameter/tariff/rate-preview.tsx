import { minutesOf, rateAt, type TouRate, WEEKDAYS } from '@meterdesk/contracts';
import { DatePicker, Flex, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCalendar } from './calendar-context';
import { clockText, segmentsOf } from './calendar-edit';
import { DayBar } from './day-bar';
import { rateColor } from './rate-colors';

const MOMENT_FORMAT = 'YYYY-MM-DD HH:mm';

/**
 * Pick a moment, see the rate the calendar applies then and why: the special day, or the season, its
 * week profile and the weekday; then the day profile and the stretch of it the moment falls in.
 */
export function RatePreview({ prices }: { prices?: Partial<Record<TouRate, number>> }) {
  const { t } = useTranslation();
  const { calendar } = useCalendar();
  const [moment, setMoment] = useState<Dayjs>(() => dayjs().startOf('minute'));
  const date = moment.format('YYYY-MM-DD');
  const time = moment.format('HH:mm');
  const found = rateAt(calendar, { date, time });
  const d = found ? calendar.days.findIndex((day) => day.dayId === found.dayId) : -1;
  const day = calendar.days[d];
  const minute = minutesOf(time);
  const stretch = day && segmentsOf(day).find((s) => s.start <= minute && minute < s.end);

  const why: string[] = [];
  if (found) {
    const special = found.specialDay === null ? undefined : calendar.specialDays[found.specialDay];
    if (special) why.push(t('tariffEditor.preview.special', { date: special.date }));
    else if (found.season !== null) {
      why.push(
        t('tariffEditor.preview.season', { n: found.season + 1, start: calendar.seasons[found.season]?.start }),
        t('tariffEditor.week', { id: found.weekId }),
        t(`tariffEditor.weekdays.${WEEKDAYS[(moment.day() + 6) % 7]}`),
      );
    }
    why.push(t('tariffEditor.day', { id: found.dayId }));
    if (stretch) why.push(`${clockText(stretch.start)}–${clockText(stretch.end)}`);
  }
  const price = found ? prices?.[found.rate] : undefined;
  const color = found ? rateColor(found.rate) : undefined;

  return (
    <Flex vertical gap="small" data-testid="rate-preview">
      <DatePicker
        showTime={{ format: 'HH:mm' }}
        format={MOMENT_FORMAT}
        value={moment}
        allowClear={false}
        aria-label={t('tariffEditor.preview.moment')}
        data-testid="preview-moment"
        onChange={(next) => next && setMoment(next)}
        // Enter sets the moment (the picker takes it first); the tariff form around must not take it as submit.
        onKeyDown={(event) => event.key === 'Enter' && event.preventDefault()}
        style={{ width: 200 }}
      />
      {found && color ? (
        <>
          <Flex gap="small" align="center" wrap>
            <span
              className="tou-rate-chip"
              style={{ background: color.fill, color: color.text }}
              data-testid="preview-rate"
              data-rate={found.rate}
            >
              {t('tariffEditor.rate', { rate: found.rate })}
            </span>
            {price !== undefined && (
              <Typography.Text data-testid="preview-price">
                {t('tariffEditor.preview.price', { price })}
              </Typography.Text>
            )}
          </Flex>
          <Typography.Text type="secondary" data-testid="preview-why">
            {why.join(' → ')}
          </Typography.Text>
          {day && <DayBar d={d} day={day} size="mini" at={minute} />}
        </>
      ) : (
        <Typography.Text type="warning" data-testid="preview-none">
          {t('tariffEditor.preview.none')}
        </Typography.Text>
      )}
    </Flex>
  );
}
