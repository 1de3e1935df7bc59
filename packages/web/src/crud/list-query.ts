import { type ChosenPeriod, PERIOD_KEYS, periodIssue, resolvePeriod } from '@meterdesk/contracts';
import { readRange } from '@/fields/date-range';
import type { FieldDescriptor, TimeRangeFilter } from './crud-config';

type SortOrder = 'ascend' | 'descend';

export interface ListQuery {
  curPage: number;
  pageSize: number;
  sortField?: string;
  sortOrder?: SortOrder;
  filters: Record<string, string | number>;
}

const DEFAULT_PAGE_SIZE = 10;

function positiveInt(raw: string | null, fallback: number): number {
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/** Numeric fields and selects over numeric options travel as numbers; everything else as text. */
function isNumeric(field: FieldDescriptor): boolean {
  return field.widget === 'number' || (field.options?.some((option) => typeof option.value === 'number') ?? false);
}

/**
 * The list state lives in the URL, so a tab reopens its list with the same page, sort and filters.
 * Anything not declared (unknown sort field, stray parameter) is dropped rather than sent. A required
 * time range missing from the URL (or one the server would refuse) becomes the default range.
 */
export function readListQuery(
  params: URLSearchParams,
  filterFields: readonly FieldDescriptor[],
  sortableFields: ReadonlySet<string>,
  timeRange?: TimeRangeFilter,
): ListQuery {
  const query: ListQuery = {
    curPage: positiveInt(params.get('curPage'), 1),
    pageSize: positiveInt(params.get('pageSize'), DEFAULT_PAGE_SIZE),
    filters: {},
  };
  const sortField = params.get('sortField');
  const sortOrder = params.get('sortOrder');
  if (sortField && sortableFields.has(sortField) && (sortOrder === 'ascend' || sortOrder === 'descend')) {
    query.sortField = sortField;
    query.sortOrder = sortOrder;
  }
  for (const field of filterFields) {
    const raw = params.get(field.key)?.trim();
    if (!raw) continue;
    if (!isNumeric(field)) query.filters[field.key] = raw;
    else if (Number.isFinite(Number(raw))) query.filters[field.key] = Number(raw);
  }
  if (timeRange?.period) {
    const { startKey, endKey, period } = timeRange;
    [query.filters[startKey], query.filters[endKey]] = shownPeriod(period, params);
  } else if (timeRange) {
    const { startKey, endKey, maxDays } = timeRange;
    [query.filters[startKey], query.filters[endKey]] = readRange(params.get(startKey), params.get(endKey), maxDays);
  }
  return query;
}

/** The period a URL asks for, checked as the server checks it: one it would refuse is the page's default. */
export function shownPeriod(period: ChosenPeriod, params: URLSearchParams): [string, string] {
  const keys = PERIOD_KEYS[period.unit];
  const asked = { [keys.start]: params.get(keys.start) ?? undefined, [keys.end]: params.get(keys.end) ?? undefined };
  const { start, end } = resolvePeriod(period, periodIssue(period, asked) ? {} : asked);
  return [start, end];
}

export function writeListQuery(query: ListQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query.filters)) {
    if (value !== '') params.set(key, String(value));
  }
  if (query.curPage !== 1) params.set('curPage', String(query.curPage));
  if (query.pageSize !== DEFAULT_PAGE_SIZE) params.set('pageSize', String(query.pageSize));
  if (query.sortField && query.sortOrder) {
    params.set('sortField', query.sortField);
    params.set('sortOrder', query.sortOrder);
  }
  return params;
}

/** The list operation's body: `{pageSize, curPage, sortField?, sortOrder?, …filters}`. */
export function listRequest(query: ListQuery): Record<string, string | number> {
  const body: Record<string, string | number> = { ...query.filters, curPage: query.curPage, pageSize: query.pageSize };
  if (query.sortField && query.sortOrder) {
    body.sortField = query.sortField;
    body.sortOrder = query.sortOrder;
  }
  return body;
}

/** Whether two queries ask for the same rows (filters in any order). */
export function sameQuery(a: ListQuery, b: ListQuery): boolean {
  const canonical = (query: ListQuery) => {
    const params = writeListQuery(query);
    params.sort();
    return params.toString();
  };
  return canonical(a) === canonical(b);
}
