import { RES, type TouCalendar } from '@meterdesk/contracts';
import { Typography } from 'antd';
import { createContext, useContext } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { usePermissions } from '@/app/permissions/permission-context';
import { messageText } from '@/i18n/message-text';
import { type IssueIndex, issuesAt, type ShownIssue } from './calendar-issues';

export interface CalendarState {
  calendar: TouCalendar;
  issues: IssueIndex;
  /** Applies a change; absent when the calendar is shown read-only. A null change does nothing. */
  edit?: (change: (calendar: TouCalendar) => TouCalendar | null) => void;
}

export const CalendarContext = createContext<CalendarState | null>(null);

export function useCalendar(): CalendarState {
  const state = useContext(CalendarContext);
  if (!state) throw new Error('useCalendar outside a calendar editor');
  return state;
}

/** The TOU limitation settings, where an 'Exceeding limitation' points the user. */
function LimitIssue({ path, issue }: { path: string; issue: ShownIssue }) {
  const { t } = useTranslation();
  const permissions = usePermissions();
  const settings = t('tariffEditor.limit.settings');
  return (
    <>
      {t('tariffEditor.limit.exceeding', { max: issue.params?.max, what: t(`tariffEditor.limit.what.${path}`) })}{' '}
      {permissions.pages.has(RES.systemSettings) ? (
        <Link to={RES.systemSettings} data-testid={`limit-settings-${path}`}>
          {settings}
        </Link>
      ) : (
        `(${settings})`
      )}
    </>
  );
}

/**
 * What is wrong at one part of the calendar, in the user's language, where the part is drawn. Its
 * test id names the path (`issue-days.0.switches.2.time`), as the server's issues do.
 */
export function IssueText({ path, below = false }: { path: string; below?: boolean }) {
  const { t } = useTranslation();
  const { issues } = useCalendar();
  const found = issuesAt(issues, path, below);
  if (found.length === 0) return null;
  return (
    <Typography.Text type="danger" role="alert" data-testid={`issue-${path}`} className="tou-issue">
      {found.map((issue, n) => (
        <span key={issue.key}>
          {n > 0 && '; '}
          {issue.key === 'exceedingLimitation' ? (
            <LimitIssue path={path} issue={issue} />
          ) : (
            messageText(t, issue.key, issue.params)
          )}
        </span>
      ))}
    </Typography.Text>
  );
}

/** Whether a part (or, with `below`, anything in it) has an issue: the part is outlined. */
export function useHasIssue(path: string, below = false): boolean {
  return issuesAt(useCalendar().issues, path, below).length > 0;
}
