import {
  type CalendarIssue,
  calendarIssues,
  type IssueParams,
  issueKey,
  issueParams,
  type TouCalendar,
  TouCalendarSchema,
  type TouLimits,
  type ValidationIssue,
} from '@meterdesk/contracts';

export interface ShownIssue {
  key: string;
  params?: IssueParams;
}

/** Issues by their dotted path inside the calendar (`days.0.switches.2.time`). */
export type IssueIndex = ReadonlyMap<string, readonly ShownIssue[]>;

/** Where the calendar sits in the tariff's request: the server's issue paths start with it. */
export const CALENDAR_FIELD = 'calendar';

/**
 * Every issue the editor can show at its part. Anything else (a server issue the editor has no place
 * for) is listed above the editor, so nothing the server says is lost.
 */
const PLACED = [
  /^days\.\d+\.switches\.\d+(\.(time|rate))?$/,
  /^days\.\d+(\.(dayId|switches))?$/,
  /^weeks\.\d+\.days\.\d+$/,
  /^weeks\.\d+(\.(weekId|days))?$/,
  /^seasons\.\d+(\.(start|weekId))?$/,
  /^specialDays\.\d+(\.(date|dayId))?$/,
  /^(days|weeks|seasons|specialDays|rates)$/,
];
export const isPlaced = (path: string) => PLACED.some((pattern) => pattern.test(path));

/**
 * What is wrong with the calendar as it stands: the schema's checks, the rules between its parts and,
 * given the TOU limitation settings, their counts; then what the server answered to the last save.
 */
export function issueIndex(
  calendar: TouCalendar,
  limits: TouLimits | undefined,
  server: readonly ValidationIssue[] = [],
): IssueIndex {
  const found: { path: string; issue: ShownIssue }[] = [];
  const parsed = TouCalendarSchema.safeParse(calendar);
  if (parsed.success) {
    for (const issue of calendarIssues(calendar, limits) as CalendarIssue[])
      found.push({ path: issue.path.join('.'), issue: { key: issue.key, params: issue.params } });
  } else {
    for (const issue of parsed.error.issues)
      found.push({
        path: issue.path.map(String).join('.'),
        issue: { key: issueKey(issue), params: issueParams(issue) },
      });
  }
  const prefix = `${CALENDAR_FIELD}.`;
  for (const issue of server) {
    if (issue.field === CALENDAR_FIELD || issue.field.startsWith(prefix))
      found.push({ path: issue.field.slice(prefix.length), issue: { key: issue.key, params: issue.params } });
  }
  const index = new Map<string, ShownIssue[]>();
  for (const { path, issue } of found) {
    const at = index.get(path) ?? [];
    if (!at.some((known) => known.key === issue.key)) at.push(issue);
    index.set(path, at);
  }
  return index;
}

/** The issues at `path` and, with `below`, at every path under it. */
export function issuesAt(index: IssueIndex, path: string, below = false): readonly ShownIssue[] {
  if (!below) return index.get(path) ?? [];
  return [...index].filter(([at]) => at === path || at.startsWith(`${path}.`)).flatMap(([, issues]) => issues);
}
