import { type ChosenPeriod, utcToday } from '@meterdesk/contracts';
import { DatePicker } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import {
  isAfterToday,
  isDisabledRangeDay,
  keepTypedDate,
  monthPresetsWithin,
  presetMonths,
  presetRange,
  presetsWithin,
} from './date-range';

const DAY = 'YYYY-MM-DD';
const MONTH = 'YYYY-MM';
/** Today in UTC as a local calendar day: periods are whole UTC days, as the rollups count them. */
const utcNow = () => dayjs(utcToday());

/**
 * An analytics period: whole UTC days or whole months (one when the page takes one), with the
 * spec §9 shortcuts that fit the page's limit, and nothing after today (this month) to pick.
 */
export function PeriodInput({
  id,
  period,
  value,
  onChange,
  testId,
}: {
  id?: string;
  period: ChosenPeriod;
  value?: readonly [string, string] | null;
  onChange?: (value: [string, string] | null) => void;
  testId: string;
}) {
  const { t } = useTranslation();
  const format = period.unit === 'day' ? DAY : MONTH;
  const current = value ? ([dayjs(value[0]), dayjs(value[1])] as [Dayjs, Dayjs]) : null;
  const presets = useMemo(() => {
    const now = utcNow();
    if (period.unit === 'month')
      return monthPresetsWithin(period.maxMonths, now).map((preset) => ({
        label: t(`crud.rangePresets.${preset}`),
        value: presetMonths(preset, now),
      }));
    return presetsWithin(period.maxDays, now).map((preset) => ({
      label: t(`crud.rangePresets.${preset}`),
      value: presetRange(preset, now),
    }));
  }, [period, t]);
  const emit = (dates: [Dayjs | null, Dayjs | null] | null) =>
    onChange?.(dates?.[0] && dates[1] ? [dates[0].format(format), dates[1].format(format)] : null);

  if (period.unit === 'day' && period.maxDays === 1)
    return (
      <DatePicker
        id={id}
        data-testid={testId}
        allowClear={false}
        onKeyDown={keepTypedDate}
        value={current?.[0] ?? null}
        disabledDate={(date) => isAfterToday(date, utcNow())}
        onChange={(date) => emit(date ? [date, date] : null)}
      />
    );
  if (period.unit === 'month' && period.maxMonths === 1)
    return (
      <DatePicker
        id={id}
        data-testid={testId}
        picker="month"
        allowClear={false}
        onKeyDown={keepTypedDate}
        value={current?.[0] ?? null}
        disabledDate={(date) => date.isAfter(utcNow().endOf('month'))}
        onChange={(date) => emit(date ? [date, date] : null)}
      />
    );
  if (period.unit === 'month')
    return (
      <DatePicker.RangePicker
        id={id}
        data-testid={testId}
        picker="month"
        allowClear={false}
        onKeyDown={keepTypedDate}
        value={current}
        presets={presets}
        disabledDate={(date, info) =>
          date.isAfter(utcNow().endOf('month')) ||
          (info.from !== undefined && Math.abs(date.diff(info.from, 'month')) >= period.maxMonths)
        }
        onChange={emit}
      />
    );
  return (
    <DatePicker.RangePicker
      id={id}
      data-testid={testId}
      allowClear={false}
      onKeyDown={keepTypedDate}
      value={current}
      presets={presets}
      disabledDate={(date, info) => isDisabledRangeDay(date, info.from, period.maxDays, utcNow())}
      onChange={emit}
    />
  );
}
