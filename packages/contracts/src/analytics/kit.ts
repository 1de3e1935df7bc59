import { z } from 'zod';
import { EXPORT_FORMATS, MAX_EXPORT_COLUMNS, MAX_PDF_ROWS } from '../archive/archive-api';
import { CONSUMER_TYPES } from '../archive/enums';
import { DaySchema } from '../collection/readings.api';
import { field, type ListEntity } from '../common/entity';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';
import { pageOf } from '../common/paging';

/*
 * The analytics kit. Every page under /dataAnalytic has one shape: a filter bar (grid node, DCU, meter,
 * consumer type, a period), a summary strip, a chart, a server-paged table and an export; some add a
 * detail page. A page declares that shape once with `defineAnalytics`; `analyticsApi` names its calls,
 * the server's `registerAnalytics` answers them from the page's queries and the web's `AnalyticsPage`
 * draws them. The period is checked here, in the request schema, so a refused period never reaches
 * the database.
 */

export const ANALYTICS_AREA = '/dataAnalytic';

/**
 * How a page's period is chosen: whole UTC days (a single day when `maxDays` is 1) or whole months (a
 * single month when `maxMonths` is 1); `none` for a page about the fleet as it is now (network monitor),
 * which takes no period keys and whose period resolves to today. The default period ends today (this
 * month), or `defaultEndsAgo` days (months) before: a billing month is frozen only once it has ended.
 */
export type PeriodSpec =
  | { unit: 'day'; maxDays: number; defaultDays: number; defaultEndsAgo?: number }
  | { unit: 'month'; maxMonths: number; defaultMonths: number; defaultEndsAgo?: number }
  | { unit: 'none' };

/** A period a date picker chooses (every unit but `none`). */
export type ChosenPeriod = Exclude<PeriodSpec, { unit: 'none' }>;

export const PERIOD_KEYS = {
  day: { start: 'startDay', end: 'endDay' },
  month: { start: 'startMonth', end: 'endMonth' },
} as const;

const isMonth = (month: string) => /^\d{4}-(0[1-9]|1[0-2])$/.test(month);
export const MonthSchema = z.string('mandatory').refine(isMonth, { message: 'invalidDate' });

/** Today as a UTC day; the server's rollups and the period both count in UTC days. */
export const utcToday = (now: Date = new Date()) => now.toISOString().slice(0, 10);
export const addUtcDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
export const addMonths = (month: string, months: number) => {
  const [year, m] = month.split('-').map(Number) as [number, number];
  const index = year * 12 + (m - 1) + months;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
};
const monthsBetween = (from: string, to: string) => {
  const [fy, fm] = from.split('-').map(Number) as [number, number];
  const [ty, tm] = to.split('-').map(Number) as [number, number];
  return ty * 12 + tm - (fy * 12 + fm);
};

/** A resolved period: both ends inclusive, days `YYYY-MM-DD` or months `YYYY-MM`. */
export interface Period {
  start: string;
  end: string;
}

/** The period a request names, or the page's default one ending today (this month). */
export function resolvePeriod(spec: PeriodSpec, body: Record<string, unknown>, now: Date = new Date()): Period {
  if (spec.unit === 'none') return { start: utcToday(now), end: utcToday(now) };
  const keys = PERIOD_KEYS[spec.unit];
  const start = body[keys.start] as string | undefined;
  const end = body[keys.end] as string | undefined;
  if (start && end) return { start, end };
  const ago = spec.defaultEndsAgo ?? 0;
  if (spec.unit === 'day') {
    const last = addUtcDays(utcToday(now), -ago);
    return { start: addUtcDays(last, 1 - spec.defaultDays), end: last };
  }
  const last = addMonths(utcToday(now).slice(0, 7), -ago);
  return { start: addMonths(last, 1 - spec.defaultMonths), end: last };
}

/**
 * spec §5: nothing after today (this month), the start not after the end, at most the page's length.
 * Both ends or neither (the default period).
 */
export function periodIssue(
  spec: PeriodSpec,
  body: Record<string, unknown>,
  now: Date = new Date(),
): { path: string; message: string } | undefined {
  if (spec.unit === 'none') return undefined;
  const keys = PERIOD_KEYS[spec.unit];
  const start = body[keys.start] as string | undefined;
  const end = body[keys.end] as string | undefined;
  if (start === undefined && end === undefined) return undefined;
  if (start === undefined) return { path: keys.start, message: 'mandatory' };
  if (end === undefined) return { path: keys.end, message: 'mandatory' };
  const last = spec.unit === 'day' ? utcToday(now) : utcToday(now).slice(0, 7);
  if (end > last) return { path: keys.end, message: 'dateAfterToday' };
  if (start > end) return { path: keys.start, message: 'timeRangeInvalid' };
  const length =
    spec.unit === 'day' ? (Date.parse(end) - Date.parse(start)) / 86_400_000 + 1 : monthsBetween(start, end) + 1;
  if (length > (spec.unit === 'day' ? spec.maxDays : spec.maxMonths))
    return { path: keys.end, message: 'timeRangeTooLong' };
  return undefined;
}

type PeriodKey = (typeof PERIOD_KEYS)[keyof typeof PERIOD_KEYS][keyof (typeof PERIOD_KEYS)['day']];

/** Typed by its keys, not an index signature: a request extended with it keeps its other fields' types. */
function periodShape(spec: PeriodSpec): { [key in PeriodKey]?: z.ZodOptional<typeof DaySchema> } {
  if (spec.unit === 'none') return {};
  const keys = PERIOD_KEYS[spec.unit];
  const limit =
    spec.unit === 'day'
      ? `at most ${spec.maxDays} days (both ends included), none after today (UTC); the last ${spec.defaultDays} when both are absent`
      : `at most ${spec.maxMonths} months, none after this month; the last ${spec.defaultMonths} when both are absent`;
  const schema = spec.unit === 'day' ? DaySchema : MonthSchema;
  return {
    [keys.start]: schema.optional().describe(`${spec.unit === 'day' ? 'UTC day' : 'Month YYYY-MM'}; ${limit}`),
    [keys.end]: schema.optional().describe(`${spec.unit === 'day' ? 'UTC day' : 'Month YYYY-MM'}, the last one`),
  };
}

/** A page's own check of a request with a valid period (`AnalyticsDefinition.check`). */
export type RequestCheck = (
  body: Record<string, unknown>,
  period: Period,
) => { path: string; message: string } | undefined;

/**
 * Adds the period's keys and its check to a request schema (refined last: zod cannot extend a refined
 * object), then the page's own check once the period is valid.
 */
export function withPeriod<S extends z.ZodObject>(schema: S, spec: PeriodSpec, check?: RequestCheck) {
  return schema.extend(periodShape(spec)).superRefine((body, ctx) => {
    const input = body as Record<string, unknown>;
    const issue = periodIssue(spec, input) ?? check?.(input, resolvePeriod(spec, input));
    if (issue) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message, input: body });
  });
}

/*
 * The filters every analytics row may offer; a page's entity picks those it answers by. They are
 * fields of the row so the filter bar labels and draws them as the table does.
 */
export const analyticsField = {
  gridId: () => field(IdSchema, { label: 'analytics.fields.gridId', widget: 'treeSelect', lookup: 'gridTree' }),
  gridName: () => field(z.string(), { label: 'analytics.fields.gridName', widget: 'text' }),
  dcuId: () => field(IdSchema.nullable(), { label: 'analytics.fields.dcuId', widget: 'select', lookup: 'dcus' }),
  dcuNo: () => field(z.string().nullable(), { label: 'analytics.fields.dcuNo', widget: 'text' }),
  meterId: () => field(IdSchema, { label: 'analytics.fields.meterId', widget: 'text' }),
  devAddr: () => field(z.string(), { label: 'analytics.fields.devAddr', widget: 'text' }),
  consumerType: () =>
    field(z.enum(CONSUMER_TYPES).nullable(), {
      label: 'analytics.fields.consumerType',
      widget: 'select',
      options: CONSUMER_TYPES.map((value) => ({ value, label: `consumer.consumerTypes.${value}` })),
    }),
};

/** A meter named by its serial: exact, as a field crew reads it off the meter. */
export const DevAddrFilterSchema = z.string().trim().min(1, 'mandatory').max(50, 'tooLong');

/** What the chart of a page draws: points of `point`, `x` along the axis and one series per field. */
/** What a series means where its colour should say it: devices offline or severe events in red. */
export type ChartTone = 'good' | 'warning' | 'bad';

export interface ChartSpec<K extends string = string> {
  /** `scatter`: a dot per point and series, none joined (events on a timeline). */
  kind: 'line' | 'bar' | 'scatter';
  x: K;
  /** `time`: ISO moments (zoomable); `day` / `month`: UTC days or months; `category`: names. */
  xType: 'time' | 'day' | 'month' | 'category';
  series: readonly K[];
  /** Series share one bar or area per x (parts of a whole). */
  stacked?: boolean;
  /** Overlaid curves: the points split into one line per value of this field (a meter, a day). */
  seriesBy?: K;
  /**
   * The whole category axis when points may leave some out (a day's 96 slots): a category no point
   * holds is a gap in the lines, not joined over.
   */
  categories?: readonly string[];
  /** Series whose colour carries a meaning; the others take the palette's (lines of `seriesBy` always do). */
  tones?: Partial<Record<K, ChartTone>>;
  /**
   * Scatter: each series is a row of a category y axis (an event level), and a point's value is not a
   * height but what its dot stands for, named by this i18n key (`{{value}}`: an event's code).
   */
  rows?: { valueLabel: string };
}

/** An entity as `defineEntity` answers it: its list query derived from the filters and sortable columns. */
export type AnalyticsEntity = ListEntity & { listQuery: z.ZodObject };

export interface AnalyticsDefinition<E extends AnalyticsEntity, Sum extends z.ZodObject, Pt extends z.ZodObject> {
  /** The rows: record, columns (sortable ones), filters; `pagePath` is the page's resource. */
  entity: E;
  /** i18n key of the page's title, which heads its exports; `analytics.<entity name>.title` when absent. */
  title?: string;
  period: PeriodSpec;
  /** The figures of the summary strip; each field's meta labels it. */
  summary: Sum;
  /** One point of the chart; its fields' meta label the axis and the series. */
  point: Pt;
  chart: ChartSpec<Extract<keyof Pt['shape'], string>>;
  /**
   * Keys every call of the page carries besides its filters, not chosen in its filter bar (a detail
   * page's meter, from the row it was opened from); missing, they are refused as mandatory.
   */
  fixed?: z.ZodRawShape;
  /** A rule across keys the schema cannot say (several meters overlaid on one day only), checked before any query. */
  check?: RequestCheck;
}

export function defineAnalytics<E extends AnalyticsEntity, Sum extends z.ZodObject, Pt extends z.ZodObject>(
  definition: AnalyticsDefinition<E, Sum, Pt>,
) {
  return definition;
}

/** The i18n key of a page's title. */
export const analyticsTitle = (definition: { entity: { name: string }; title?: string }) =>
  definition.title ?? `analytics.${definition.entity.name}.title`;

/** The calls of an analytics page: `/analytics/<name>/{list,summary,export}`, all needing the page (export its button). */
export function analyticsApi<E extends AnalyticsEntity, Sum extends z.ZodObject, Pt extends z.ZodObject>(
  definition: AnalyticsDefinition<E, Sum, Pt>,
) {
  const { entity, period } = definition;
  const tag = `analytics/${entity.name}`;
  const base = `/analytics/${entity.name}`;
  const listQuery = entity.listQuery as z.ZodObject;
  const filters = listQuery.omit({ pageSize: true, curPage: true, sortField: true, sortOrder: true } as never);
  const columns = entity.columns.map((c) => c.field) as [string, ...string[]];
  const fixed = definition.fixed ?? {};
  const { check } = definition;
  const list = withPeriod(listQuery.extend(fixed), period, check);
  const summary = withPeriod(filters.extend(fixed), period, check);
  const exportRequest = withPeriod(
    listQuery
      .extend(fixed)
      .omit({ pageSize: true, curPage: true } as never)
      .extend({
        columns: z
          .array(z.enum(columns, 'invalidValue'))
          .min(1, 'mandatory')
          .max(MAX_EXPORT_COLUMNS, 'tooLong')
          .optional()
          .describe('Columns to write, in order; all the table shows when absent'),
        format: z
          .enum(EXPORT_FORMATS, 'invalidValue')
          .default('xlsx')
          .describe(`xlsx (every row), or pdf: A4, the first ${MAX_PDF_ROWS} rows`),
      }),
    period,
    check,
  );
  return {
    list: defineOperation({
      path: `${base}/list`,
      access: needs(entity.pagePath),
      tag,
      summary: `${entity.name}: one page of the rows for the filters and period, in the caller's grid scope`,
      request: list as unknown as z.ZodType<z.output<E['listQuery']> & Record<string, string | undefined>>,
      response: pageOf(entity.record as E['record']),
    }),
    summary: defineOperation({
      path: `${base}/summary`,
      access: needs(entity.pagePath),
      tag,
      summary: `${entity.name}: the summary figures and the chart's points for the filters and period`,
      request: summary as unknown as z.ZodType<Record<string, unknown>>,
      response: z.object({ figures: definition.summary, points: z.array(definition.point) }),
    }),
    export: defineOperation({
      path: `${base}/export`,
      access: needs(`${entity.pagePath}/export`),
      tag,
      summary: `${entity.name}: the filtered rows as .xlsx, or as an A4 PDF (at most ${MAX_PDF_ROWS} rows)`,
      request: exportRequest as unknown as z.ZodType<Record<string, unknown>>,
      response: z.never(),
    }),
  };
}
export type AnalyticsApi = ReturnType<typeof analyticsApi>;
