import type { TouCalendar, TouLimits, TouRate, ValidationIssue } from '@meterdesk/contracts';
import { Alert, Card, Flex } from 'antd';
import { type ReactNode, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { messageText } from '@/i18n/message-text';
import { CalendarContext, type CalendarState } from './calendar-context';
import { isPlaced, issueIndex } from './calendar-issues';
import { DayProfiles } from './day-profiles';
import { RateLegend } from './rate-legend';
import { RatePreview } from './rate-preview';
import { WeekGrid } from './week-grid';
import { YearStrip } from './year-strip';
import './tariff.css';

export interface CalendarEditorProps {
  value: TouCalendar;
  /** Without it the calendar is shown, not edited. */
  onChange?: (next: TouCalendar) => void;
  /** The TOU limitation settings the counts are checked against as the user edits (the server checks again). */
  limits?: TouLimits;
  /** What the server answered to the last save (paths `calendar.…`); the page drops them on the next edit. */
  serverIssues?: readonly ValidationIssue[];
  /** The legend's price of a rate: an input in the form, a figure elsewhere. */
  price?: (rate: TouRate) => ReactNode;
  /** The prices the preview names with its rate. */
  prices?: Partial<Record<TouRate, number>>;
}

/**
 * A TOU calendar to look at: the rates' legend with their prices, the rate at a chosen moment, the year
 * strip of seasons and special days, the week grid and each day profile's 24-hour bar. Editable, every
 * part changes in place, and what `calendarIssues` (or the server) finds wrong shows at that part.
 */
export function CalendarEditor({ value, onChange, limits, serverIssues, price, prices }: CalendarEditorProps) {
  const { t } = useTranslation();
  const issues = useMemo(() => issueIndex(value, limits, serverIssues), [value, limits, serverIssues]);
  // Changes arriving between two renders (a drag's pointer moves) build on one another.
  const latest = useRef(value);
  latest.current = value;
  const state = useMemo<CalendarState>(
    () => ({
      calendar: value,
      issues,
      edit: onChange
        ? (change) => {
            const next = change(latest.current);
            if (!next) return;
            latest.current = next;
            onChange(next);
          }
        : undefined,
    }),
    [value, issues, onChange],
  );
  const count = [...issues.values()].reduce((sum, list) => sum + list.length, 0);
  const unplaced = [...issues].filter(([path]) => !isPlaced(path));

  return (
    <CalendarContext value={state}>
      <Flex vertical gap="middle" className="tou-editor" data-testid="tariff-calendar">
        {count > 0 && (
          <Alert
            type="error"
            showIcon
            title={t('tariffEditor.issueCount', { count })}
            description={
              unplaced.length > 0 &&
              unplaced.map(([path, list]) => (
                <div key={path} data-testid={`issue-${path || 'calendar'}`}>
                  {path && `${path}: `}
                  {list.map((issue) => messageText(t, issue.key, issue.params)).join('; ')}
                </div>
              ))
            }
            data-testid="calendar-issue-summary"
          />
        )}
        <Flex gap="middle" wrap align="stretch">
          <Card size="small" title={t('tariffEditor.sections.rates')} style={{ flex: '1 1 320px' }}>
            <RateLegend price={price} />
          </Card>
          <Card size="small" title={t('tariffEditor.sections.preview')} style={{ flex: '1 1 320px' }}>
            <RatePreview prices={prices} />
          </Card>
        </Flex>
        <Card size="small" title={t('tariffEditor.sections.year')}>
          <YearStrip />
        </Card>
        <Card size="small" title={t('tariffEditor.sections.weeks')}>
          <WeekGrid />
        </Card>
        <Card size="small" title={t('tariffEditor.sections.days')}>
          <DayProfiles />
        </Card>
      </Flex>
    </CalendarContext>
  );
}
