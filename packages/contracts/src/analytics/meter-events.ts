import { z } from 'zod';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { equals, flag, subtree } from '../common/list';
import { defineOperation, needs } from '../common/operation';
import { MAX_PAGE_SIZE, PageQuerySchema, pageOf } from '../common/paging';
import { EVENT_LEVELS, type EventLevel } from '../device/protocol';
import { EVENT_CODE_MAX } from '../parameter/event-definition.schema';
import {
  ANALYTICS_AREA,
  analyticsApi,
  analyticsField,
  type ChartTone,
  DevAddrFilterSchema,
  defineAnalytics,
  withPeriod,
} from './kit';

/** The colour an event level is drawn in, wherever events are counted by level (a regular one takes the palette's first). */
export const EVENT_LEVEL_TONES: Partial<Record<EventLevel, ChartTone>> = { medium: 'warning', severe: 'bad' };

/*
 * The meter events page (spec §2 meterEvents, meterEventsDetail): the events of the caller's meters by
 * level, code, grid node and time; the storms (a DCU's meters reporting the same event at once) grouped
 * by DCU and code; their acknowledgement, one by one or a storm at a time, with a remark.
 */

const PAGE = `${ANALYTICS_AREA}/meterEvents`;
export const METER_EVENTS_RES = {
  page: PAGE,
  detail: `${PAGE}/meterEventsDetail`,
  acknowledge: `${PAGE}/acknowledge`,
  export: `${PAGE}/export`,
} as const;

/** spec §5: the events page's period is limited to this many days. */
export const MAX_METER_EVENT_DAYS = 31;
/** A meter's timeline reaches back this many days at most. */
export const MAX_METER_TIMELINE_DAYS = 92;
/** The events a meter's timeline draws at most (the newest of its period). */
export const MAX_TIMELINE_EVENTS = 1000;
/** Events one acknowledgement names at most: a page of the table. */
export const MAX_ACK_EVENTS = MAX_PAGE_SIZE;
export const ACK_REMARK_MAX = 500;

/**
 * Where an event definition's name has a translation (`<prefix>.<name>`): the standard catalogue's
 * names, as the definitions hold them until someone renames one; any other name is shown as written.
 */
export const EVENT_NAME_LABELS = ['meterEvents.standardNames'] as const;

const label = (key: string) => `meterEvents.fields.${key}`;
const count = (key: string) => field(z.number().int(), { label: label(key), widget: 'number' });
const moment = (key: string) => field(z.string(), { label: label(key), widget: 'datetime' });

export const EventCodeSchema = z
  .number('mandatory')
  .int('wholeNumber')
  .min(0, 'outOfRange')
  .max(EVENT_CODE_MAX, 'outOfRange');
/** A code to filter by: JSON clients send a number, the filter bar (a select of definitions) its text. */
const EventCodeFilterSchema = z.preprocess(
  (value) => (typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value),
  EventCodeSchema,
);
const EventLevelSchema = z.enum(EVENT_LEVELS, 'invalidValue');
const EventMomentSchema = z.iso.datetime({ offset: true, message: 'invalidValue' });

const fields = {
  /** The event's key as one text (meter, time, code): the table's row key. */
  key: field(z.string(), { label: label('key'), widget: 'text' }),
  time: moment('time'),
  code: field(EventCodeSchema, { label: label('code'), widget: 'select', lookup: 'eventCodes' }),
  /** The event definition's name ('' for a code the catalogue lacks); a standard event's is translated. */
  name: field(z.string(), { label: label('name'), widget: 'text', valueLabels: EVENT_NAME_LABELS }),
  level: field(EventLevelSchema, {
    label: label('level'),
    widget: 'select',
    options: EVENT_LEVELS.map((value) => ({ value, label: `eventDefinition.levels.${value}` })),
  }),
  acknowledged: field(z.boolean(), { label: label('acknowledged'), widget: 'switch' }),
  ackByName: field(z.string().nullable(), { label: label('ackByName'), widget: 'text' }),
  ackAt: field(z.string().nullable(), { label: label('ackAt'), widget: 'datetime' }),
  ackRemark: field(z.string().nullable(), { label: label('ackRemark'), widget: 'text' }),
};

/** One event of one meter. */
export const MeterEventRecordSchema = storedRecord(
  z.object({
    ...fields,
    meterId: analyticsField.meterId(),
    devAddr: analyticsField.devAddr(),
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    dcuId: analyticsField.dcuId(),
    dcuNo: analyticsField.dcuNo(),
  }),
);
export type MeterEventRecord = z.infer<typeof MeterEventRecordSchema>;

const eventFilters = [
  equals('level', EventLevelSchema),
  equals('code', EventCodeFilterSchema),
  flag('acknowledged'),
] as const;

export const meterEventsEntity = defineEntity({
  name: 'meterEvents',
  record: MeterEventRecordSchema,
  pagePath: PAGE,
  columns: [
    { field: 'time', sortable: true, width: 180 },
    { field: 'devAddr', width: 150 },
    { field: 'gridName', width: 140 },
    { field: 'dcuNo', width: 130 },
    { field: 'code', width: 90 },
    { field: 'name', width: 190 },
    { field: 'level', width: 100 },
    { field: 'acknowledged', width: 120 },
    { field: 'ackByName', width: 140 },
    { field: 'ackAt', width: 180 },
    { field: 'ackRemark' },
  ],
  filters: [subtree('gridId'), equals('dcuId', IdSchema), equals('devAddr', DevAddrFilterSchema), ...eventFilters],
  form: [],
  detail: ['time', 'devAddr', 'gridName', 'dcuNo', 'code', 'name', 'level', 'acknowledged', 'ackByName', 'ackAt'],
});

const levelCounts = {
  regular: count('regular'),
  medium: count('medium'),
  severe: count('severe'),
};
const dayPoint = z.object({
  day: field(z.string(), { label: 'analytics.fields.day', widget: 'text' }),
  ...levelCounts,
});

export const meterEventsAnalytics = defineAnalytics({
  entity: meterEventsEntity,
  title: 'meterEvents.title',
  period: { unit: 'day', maxDays: MAX_METER_EVENT_DAYS, defaultDays: 7 },
  summary: z.object({ events: count('events'), ...levelCounts, unacknowledged: count('unacknowledged') }),
  point: dayPoint,
  chart: {
    kind: 'bar',
    x: 'day',
    xType: 'day',
    series: ['regular', 'medium', 'severe'],
    stacked: true,
    tones: EVENT_LEVEL_TONES,
  },
});

/** One event of the meter a timeline shows. */
export const MeterTimelineRecordSchema = storedRecord(z.object({ ...fields, meterId: analyticsField.meterId() }));
export type MeterTimelineRecord = z.infer<typeof MeterTimelineRecordSchema>;

export const meterEventsDetailEntity = defineEntity({
  name: 'meterEventsDetail',
  record: MeterTimelineRecordSchema,
  pagePath: METER_EVENTS_RES.detail,
  columns: [
    { field: 'time', sortable: true, width: 180 },
    { field: 'code', width: 90 },
    { field: 'name', width: 190 },
    { field: 'level', width: 100 },
    { field: 'acknowledged', width: 120 },
    { field: 'ackByName', width: 140 },
    { field: 'ackAt', width: 180 },
    { field: 'ackRemark' },
  ],
  filters: eventFilters,
  form: [],
  detail: ['time', 'code', 'name', 'level', 'acknowledged', 'ackByName', 'ackAt', 'ackRemark'],
});

/**
 * One event on a meter's timeline: its time, and its code in the series of its level (the others
 * empty), so each level is a series of its own colour and a row of the chart, each dot naming its code.
 */
const timelinePoint = z.object({
  time: moment('time'),
  regular: field(z.number().nullable(), { label: 'eventDefinition.levels.regular', widget: 'number' }),
  medium: field(z.number().nullable(), { label: 'eventDefinition.levels.medium', widget: 'number' }),
  severe: field(z.number().nullable(), { label: 'eventDefinition.levels.severe', widget: 'number' }),
});

export const meterEventsDetailAnalytics = defineAnalytics({
  entity: meterEventsDetailEntity,
  title: 'meterEvents.detailExportTitle',
  period: { unit: 'day', maxDays: MAX_METER_TIMELINE_DAYS, defaultDays: 31 },
  summary: z.object({
    devAddr: analyticsField.devAddr(),
    events: count('events'),
    severe: count('severe'),
    unacknowledged: count('unacknowledged'),
  }),
  point: timelinePoint,
  chart: {
    kind: 'scatter',
    x: 'time',
    xType: 'time',
    series: ['regular', 'medium', 'severe'],
    tones: EVENT_LEVEL_TONES,
    // A row per level (whole categories, not codes read off a value axis), each dot naming its code.
    rows: { valueLabel: 'meterEvents.timelineCode' },
  },
  fixed: { meterId: IdSchema },
});

/**
 * A storm: the events of one code from the meters behind one DCU over the period, as many meters
 * report the same thing when their DCU or its supply fails.
 */
export const StormGroupSchema = z.object({
  /** DCU and code as one text: the table's row key. */
  key: z.string(),
  dcuId: IdSchema,
  dcuNo: z.string(),
  /** The DCU's grid node. */
  gridName: z.string().nullable(),
  code: z.number().int(),
  name: z.string(),
  level: EventLevelSchema,
  events: z.number().int(),
  /** Meters with events of the storm (within the caller's scope and the filters). */
  meters: z.number().int(),
  acknowledged: z.number().int(),
  unacknowledged: z.number().int(),
  firstTime: z.string(),
  lastTime: z.string(),
});
export type StormGroup = z.infer<typeof StormGroupSchema>;

export const STORM_SORTS = ['lastTime', 'events', 'unacknowledged'] as const;

const pageFilters = meterEventsEntity.listQuery.omit({
  pageSize: true,
  curPage: true,
  sortField: true,
  sortOrder: true,
});
export const StormQuerySchema = withPeriod(
  pageFilters.extend(PageQuerySchema.shape).extend({
    sortField: z.enum(STORM_SORTS, 'invalidValue').optional(),
    sortOrder: z.enum(['ascend', 'descend'], 'invalidValue').optional(),
  }),
  meterEventsAnalytics.period,
);
/** The storms call's request: the page's filters and period, paged, sorted by one of STORM_SORTS. */
export interface StormQuery {
  curPage: number;
  pageSize: number;
  sortField?: (typeof STORM_SORTS)[number] | undefined;
  sortOrder?: 'ascend' | 'descend' | undefined;
  startDay?: string | undefined;
  endDay?: string | undefined;
  gridId?: string | undefined;
  dcuId?: string | undefined;
  devAddr?: string | undefined;
  level?: EventLevel | undefined;
  code?: number | undefined;
  acknowledged?: boolean | undefined;
}

/** One event, named by its key (meter, time, code). */
export const EventKeySchema = z.strictObject({ meterId: IdSchema, time: EventMomentSchema, code: EventCodeSchema });
export type EventKey = z.infer<typeof EventKeySchema>;

/** A storm to acknowledge: its DCU and code, the moments of its first and last events, the node it was shown for. */
export const StormKeySchema = z.strictObject({
  dcuId: IdSchema,
  code: EventCodeSchema,
  from: EventMomentSchema,
  to: EventMomentSchema,
  gridId: IdSchema.optional(),
});
export type StormKey = z.infer<typeof StormKeySchema>;

const DAY_MS = 86_400_000;

export const AcknowledgeRequestSchema = z
  .strictObject({
    remark: field(z.string('mandatory').trim().min(1, 'mandatory').max(ACK_REMARK_MAX, 'tooLong'), {
      label: 'meterEvents.ack.remark',
      widget: 'textarea',
    }),
    events: z.array(EventKeySchema).min(1, 'mandatory').max(MAX_ACK_EVENTS, 'tooLong').optional(),
    storm: StormKeySchema.optional(),
  })
  .superRefine((body, ctx) => {
    if (!body.events === !body.storm) {
      ctx.addIssue({ code: 'custom', path: ['events'], message: 'mandatory', input: body });
      return;
    }
    if (!body.storm) return;
    const from = Date.parse(body.storm.from);
    const to = Date.parse(body.storm.to);
    if (from > to) ctx.addIssue({ code: 'custom', path: ['storm', 'from'], message: 'timeRangeInvalid', input: body });
    else if (to - from > MAX_METER_EVENT_DAYS * DAY_MS)
      ctx.addIssue({ code: 'custom', path: ['storm', 'to'], message: 'timeRangeTooLong', input: body });
  });
export type AcknowledgeRequest = z.input<typeof AcknowledgeRequestSchema>;

export const AcknowledgeResultSchema = z.object({
  /** Events this call acknowledged. */
  acknowledged: z.number().int(),
  /** Events it named that someone had acknowledged already (their first acknowledgement stays). */
  already: z.number().int(),
});
export type AcknowledgeResult = z.infer<typeof AcknowledgeResultSchema>;

export const EventCodeOptionSchema = z.object({ code: z.number().int(), name: z.string(), level: EventLevelSchema });
export type EventCodeOption = z.infer<typeof EventCodeOptionSchema>;

const tag = 'analytics/meterEvents';

export const meterEventsApi = {
  ...analyticsApi(meterEventsAnalytics),
  storms: defineOperation({
    path: '/analytics/meterEvents/storms',
    access: needs(PAGE),
    tag,
    summary:
      "meterEvents: the period's events grouped by DCU and code (a storm), with how many are acknowledged, in the caller's grid scope; direct meters are in none",
    request: StormQuerySchema as unknown as z.ZodType<StormQuery>,
    response: pageOf(StormGroupSchema),
  }),
  acknowledge: defineOperation({
    path: '/analytics/meterEvents/acknowledge',
    access: needs(METER_EVENTS_RES.acknowledge),
    tag,
    summary: `meterEvents: acknowledges with a remark the named events (at most ${MAX_ACK_EVENTS}) or a storm's unacknowledged ones, in the caller's grid scope; an event acknowledged already keeps its first acknowledgement`,
    request: AcknowledgeRequestSchema,
    response: AcknowledgeResultSchema,
    audit: 'update',
  }),
  codes: defineOperation({
    path: '/analytics/meterEvents/codes',
    access: needs(PAGE, METER_EVENTS_RES.detail),
    tag,
    summary: 'meterEvents: the event definitions (code, name, level) its filters pick from',
    request: z.strictObject({}),
    response: z.array(EventCodeOptionSchema),
  }),
};

export const meterEventsDetailApi = analyticsApi(meterEventsDetailAnalytics);
