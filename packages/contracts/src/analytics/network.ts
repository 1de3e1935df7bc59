import { z } from 'zod';
import { choice } from '../archive/enums';
import { LINK_STATES } from '../archive/live-state';
import { defineEntity, field, storedRecord } from '../common/entity';
import { IdSchema } from '../common/ids';
import { equals, subtree } from '../common/list';
import { defineOperation, needs } from '../common/operation';
import { PageQuerySchema, pageOf } from '../common/paging';
import { GRID_TYPES } from '../system/group.schema';
import {
  ANALYTICS_AREA,
  analyticsApi,
  analyticsField,
  DevAddrFilterSchema,
  defineAnalytics,
  type PeriodSpec,
  withPeriod,
} from './kit';

/*
 * The communication pages of the data analytics area: the network now (network monitor, updated live
 * from the devices' link changes), its online rate over time (network historical monitor), each DCU's
 * state (concentrator monitoring) and each device's online rate per day (device online report and its
 * detail). A meter is online while its own link is and, behind a DCU, the DCU's is too; only devices
 * expected to communicate count (every DCU; meters installed, active or in anomaly, not virtual).
 */

export const NETWORK_RES = {
  monitor: `${ANALYTICS_AREA}/networkMonitor`,
  history: `${ANALYTICS_AREA}/networkHistoricalMonitor`,
  concentrators: `${ANALYTICS_AREA}/concentratorMonitoring`,
  onlineReport: `${ANALYTICS_AREA}/deviceOnlineReport`,
  onlineDetail: `${ANALYTICS_AREA}/deviceOnlineReport/deviceOnlineDetail`,
} as const;

export const DEVICE_KINDS_ONLINE = ['meter', 'dcu'] as const;

/** spec §5: the periods' limits, in days. */
export const MAX_NETWORK_HISTORY_DAYS = 92;
export const MAX_ONLINE_REPORT_DAYS = 31;
export const MAX_ONLINE_DETAIL_DAYS = 92;

/** Read success or online share bands of the concentrator chart, as lower bounds in percent. */
export const SHARE_BANDS = [0, 50, 80, 95] as const;

const label = (key: string) => `network.fields.${key}`;
const count = (key: string) => field(z.number().int(), { label: label(key), widget: 'number' });
/** A percentage with one decimal; null when nothing was expected (no device, no time). */
const rate = (key: string) => field(z.number().nullable(), { label: label(key), widget: 'number' });
const hours = (key: string) => field(z.number().nullable(), { label: label(key), widget: 'number' });
const moment = (key: string) => field(z.string().nullable(), { label: label(key), widget: 'datetime' });
const text = (key: string) => field(z.string().nullable(), { label: label(key), widget: 'text' });
const linkState = () =>
  field(z.enum(LINK_STATES), {
    label: label('state'),
    widget: 'select',
    options: LINK_STATES.map((value) => ({ value, label: `network.states.${value}` })),
  });
const deviceKind = () =>
  field(z.enum(DEVICE_KINDS_ONLINE), {
    label: label('deviceKind'),
    widget: 'select',
    options: DEVICE_KINDS_ONLINE.map((value) => ({ value, label: `network.kinds.${value}` })),
  });
const day = () => field(z.string(), { label: 'analytics.fields.day', widget: 'text' });

// ---- network monitor: now, per grid node

/** A grid node with the devices of its whole subtree, as they are now. */
export const NetworkNodeRowSchema = storedRecord(
  z.object({
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    gridType: choice('grid', 'gridType', 'types', GRID_TYPES),
    parentName: text('parentName'),
    /** Its depth below the place's top node (0), so the table can indent the tree. */
    depth: count('depth'),
    metersOnline: count('metersOnline'),
    metersOffline: count('metersOffline'),
    meterOnlineRate: rate('meterOnlineRate'),
    dcusOnline: count('dcusOnline'),
    dcusOffline: count('dcusOffline'),
  }),
);
export type NetworkNodeRow = z.infer<typeof NetworkNodeRowSchema>;

export const networkMonitorEntity = defineEntity({
  name: 'networkMonitor',
  record: NetworkNodeRowSchema,
  pagePath: NETWORK_RES.monitor,
  columns: [
    { field: 'gridName', sortable: true, width: 200 },
    { field: 'gridType', width: 130 },
    { field: 'parentName', width: 160 },
    { field: 'metersOnline', sortable: true, width: 130 },
    { field: 'metersOffline', sortable: true, width: 130 },
    { field: 'meterOnlineRate', sortable: true, width: 140 },
    { field: 'dcusOnline', width: 120 },
    { field: 'dcusOffline', sortable: true, width: 120 },
  ],
  filters: [subtree('gridId')],
  form: [],
  detail: ['gridName', 'gridType', 'parentName', 'metersOnline', 'metersOffline', 'meterOnlineRate'],
});

const nowFigures = z.object({
  metersOnline: count('metersOnline'),
  metersOffline: count('metersOffline'),
  meterOnlineRate: rate('meterOnlineRate'),
  dcusOnline: count('dcusOnline'),
  dcusOffline: count('dcusOffline'),
  dcuOnlineRate: rate('dcuOnlineRate'),
});
export type NetworkNowFigures = z.infer<typeof nowFigures>;

export const networkMonitorAnalytics = defineAnalytics({
  entity: networkMonitorEntity,
  title: 'network.networkMonitor.title',
  period: { unit: 'none' },
  summary: nowFigures,
  /** The level below the place: its top node's children (each with its subtree), or the scope's top nodes. */
  point: z.object({
    gridName: analyticsField.gridName(),
    metersOnline: count('metersOnline'),
    metersOffline: count('metersOffline'),
  }),
  chart: {
    kind: 'bar',
    x: 'gridName',
    xType: 'category',
    series: ['metersOnline', 'metersOffline'],
    stacked: true,
    tones: { metersOnline: 'good', metersOffline: 'bad' },
  },
});
export const networkMonitorApi = analyticsApi(networkMonitorAnalytics);

// ---- network historical monitor: online rate per day, per DCU

/** A DCU's own online rate over the period and its meters'. */
export const NetworkDcuHistoryRowSchema = storedRecord(
  z.object({
    dcuId: analyticsField.dcuId(),
    dcuNo: analyticsField.dcuNo(),
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    dcuOnlineRate: rate('dcuOnlineRate'),
    meters: count('meters'),
    meterOnlineRate: rate('meterOnlineRate'),
    /** Its own link's changes in the period. */
    changes: count('changes'),
  }),
);
export type NetworkDcuHistoryRow = z.infer<typeof NetworkDcuHistoryRowSchema>;

export const networkHistoryEntity = defineEntity({
  name: 'networkHistoricalMonitor',
  record: NetworkDcuHistoryRowSchema,
  pagePath: NETWORK_RES.history,
  columns: [
    { field: 'dcuNo', sortable: true, width: 150 },
    { field: 'gridName', width: 180 },
    { field: 'dcuOnlineRate', sortable: true, width: 150 },
    { field: 'meters', width: 100 },
    { field: 'meterOnlineRate', sortable: true, width: 160 },
    { field: 'changes', sortable: true, width: 130 },
  ],
  filters: [subtree('gridId'), equals('dcuId', IdSchema)],
  form: [],
  detail: ['dcuNo', 'gridName', 'dcuOnlineRate', 'meters', 'meterOnlineRate', 'changes'],
});

const ratePoint = z.object({
  day: day(),
  meterOnlineRate: rate('meterOnlineRate'),
  dcuOnlineRate: rate('dcuOnlineRate'),
});

export const networkHistoryAnalytics = defineAnalytics({
  entity: networkHistoryEntity,
  title: 'network.networkHistoricalMonitor.title',
  period: { unit: 'day', maxDays: MAX_NETWORK_HISTORY_DAYS, defaultDays: 7 },
  summary: z.object({
    meterOnlineRate: rate('meterOnlineRate'),
    dcuOnlineRate: rate('dcuOnlineRate'),
    /** The day the meters' online rate was lowest. */
    lowestDay: text('lowestDay'),
    lowestDayRate: rate('lowestDayRate'),
  }),
  point: ratePoint,
  chart: { kind: 'line', x: 'day', xType: 'day', series: ['meterOnlineRate', 'dcuOnlineRate'] },
});
export const networkHistoryApi = analyticsApi(networkHistoryAnalytics);

// ---- concentrator monitoring: each DCU now, and today's reads of its meters

export const ConcentratorRowSchema = storedRecord(
  z.object({
    dcuId: analyticsField.dcuId(),
    dcuNo: analyticsField.dcuNo(),
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    state: linkState(),
    /** When its link last changed. */
    since: moment('since'),
    lastHeartbeat: moment('lastHeartbeat'),
    meters: count('meters'),
    metersOnline: count('metersOnline'),
    meterOnlineShare: rate('meterOnlineShare'),
    /** Load profile intervals stored today ÷ those due so far, of its meters expected to report. */
    readSuccessToday: rate('readSuccessToday'),
  }),
);
export type ConcentratorRow = z.infer<typeof ConcentratorRowSchema>;

export const concentratorEntity = defineEntity({
  name: 'concentratorMonitoring',
  record: ConcentratorRowSchema,
  pagePath: NETWORK_RES.concentrators,
  columns: [
    { field: 'dcuNo', sortable: true, width: 150 },
    { field: 'gridName', width: 170 },
    { field: 'state', width: 100 },
    { field: 'since', width: 170 },
    { field: 'lastHeartbeat', sortable: true, width: 170 },
    { field: 'meters', width: 90 },
    { field: 'metersOnline', width: 120 },
    { field: 'meterOnlineShare', sortable: true, width: 150 },
    { field: 'readSuccessToday', sortable: true, width: 170 },
  ],
  filters: [subtree('gridId'), equals('dcuId', IdSchema), equals('state', z.enum(LINK_STATES, 'invalidValue'))],
  form: [],
  detail: ['dcuNo', 'gridName', 'state', 'since', 'lastHeartbeat', 'meters', 'metersOnline', 'meterOnlineShare'],
});

export const concentratorAnalytics = defineAnalytics({
  entity: concentratorEntity,
  title: 'network.concentratorMonitoring.title',
  period: { unit: 'none' },
  summary: z.object({
    dcus: count('dcus'),
    dcusOnline: count('dcusOnline'),
    dcusOffline: count('dcusOffline'),
    meterOnlineShare: rate('meterOnlineShare'),
    readSuccessToday: rate('readSuccessToday'),
  }),
  /** DCUs per band (SHARE_BANDS) of their meters' online share and of today's read success. */
  point: z.object({
    band: field(z.string(), { label: label('band'), widget: 'text' }),
    byOnlineShare: count('byOnlineShare'),
    byReadSuccess: count('byReadSuccess'),
  }),
  chart: { kind: 'bar', x: 'band', xType: 'category', series: ['byOnlineShare', 'byReadSuccess'] },
});
export const concentratorApi = analyticsApi(concentratorAnalytics);

// ---- device online report: each device's online rate over the period, and its days

export const DeviceOnlineRowSchema = storedRecord(
  z.object({
    deviceId: field(IdSchema, { label: label('deviceId'), widget: 'text' }),
    deviceKind: deviceKind(),
    /** A meter's serial or a DCU's number. */
    deviceNo: field(z.string(), { label: label('deviceNo'), widget: 'text' }),
    gridId: analyticsField.gridId(),
    gridName: analyticsField.gridName(),
    /** A meter's DCU; a DCU's row names itself, as the DCU filter lists the DCU with its meters. */
    dcuId: analyticsField.dcuId(),
    dcuNo: analyticsField.dcuNo(),
    /** A meter's serial (the meter filter's field); null for a DCU. */
    devAddr: field(z.string().nullable(), { label: 'analytics.fields.devAddr', widget: 'text' }),
    onlineRate: rate('onlineRate'),
    onlineHours: hours('onlineHours'),
    changes: count('changes'),
    /** Days of the period rolled up for it. */
    daysKnown: count('daysKnown'),
    state: linkState(),
  }),
);
export type DeviceOnlineRow = z.infer<typeof DeviceOnlineRowSchema>;

export const deviceOnlineEntity = defineEntity({
  name: 'deviceOnlineReport',
  record: DeviceOnlineRowSchema,
  pagePath: NETWORK_RES.onlineReport,
  columns: [
    { field: 'deviceNo', sortable: true, width: 150 },
    { field: 'deviceKind', width: 100 },
    { field: 'gridName', width: 170 },
    { field: 'dcuNo', width: 140 },
    { field: 'onlineRate', sortable: true, width: 130 },
    { field: 'onlineHours', width: 130 },
    { field: 'changes', sortable: true, width: 120 },
    { field: 'daysKnown', width: 110 },
    { field: 'state', width: 100 },
  ],
  filters: [
    subtree('gridId'),
    equals('dcuId', IdSchema),
    equals('deviceKind', z.enum(DEVICE_KINDS_ONLINE, 'invalidValue')),
    equals('devAddr', DevAddrFilterSchema),
  ],
  form: [],
  detail: ['deviceNo', 'deviceKind', 'gridName', 'dcuNo', 'onlineRate', 'onlineHours', 'changes', 'state'],
});

export const deviceOnlineAnalytics = defineAnalytics({
  entity: deviceOnlineEntity,
  title: 'network.deviceOnlineReport.title',
  period: { unit: 'day', maxDays: MAX_ONLINE_REPORT_DAYS, defaultDays: 7 },
  summary: z.object({
    devices: count('devices'),
    onlineRate: rate('onlineRate'),
    offlineNow: count('offlineNow'),
    changes: count('changes'),
  }),
  point: ratePoint,
  chart: { kind: 'bar', x: 'day', xType: 'day', series: ['meterOnlineRate', 'dcuOnlineRate'] },
});
export const deviceOnlineApi = analyticsApi(deviceOnlineAnalytics);

/** One day of one device. */
export const DeviceOnlineDayRowSchema = storedRecord(
  z.object({
    day: day(),
    onlineRate: rate('onlineRate'),
    onlineHours: hours('onlineHours'),
    changes: count('changes'),
    /** Its state when the day ended (now, for today). */
    stateAtEnd: field(z.enum(LINK_STATES), {
      label: label('stateAtEnd'),
      widget: 'select',
      options: LINK_STATES.map((value) => ({ value, label: `network.states.${value}` })),
    }),
  }),
);
export type DeviceOnlineDayRow = z.infer<typeof DeviceOnlineDayRowSchema>;

export const deviceOnlineDetailEntity = defineEntity({
  name: 'deviceOnlineDetail',
  record: DeviceOnlineDayRowSchema,
  pagePath: NETWORK_RES.onlineDetail,
  columns: [
    { field: 'day', sortable: true, width: 130 },
    { field: 'onlineRate', sortable: true, width: 130 },
    { field: 'onlineHours', width: 130 },
    { field: 'changes', sortable: true, width: 120 },
    { field: 'stateAtEnd', width: 140 },
  ],
  filters: [],
  form: [],
  detail: ['day', 'onlineRate', 'onlineHours', 'changes', 'stateAtEnd'],
});

const ONLINE_DETAIL_PERIOD = {
  unit: 'day',
  maxDays: MAX_ONLINE_DETAIL_DAYS,
  defaultDays: 31,
} as const satisfies PeriodSpec;

export const deviceOnlineDetailAnalytics = defineAnalytics({
  entity: deviceOnlineDetailEntity,
  title: 'network.deviceOnlineReport.title',
  period: ONLINE_DETAIL_PERIOD,
  summary: z.object({
    deviceNo: field(z.string(), { label: label('deviceNo'), widget: 'text' }),
    deviceKind: deviceKind(),
    onlineRate: rate('onlineRate'),
    changes: count('changes'),
    state: linkState(),
    since: moment('since'),
  }),
  point: z.object({ day: day(), onlineRate: rate('onlineRate') }),
  chart: { kind: 'bar', x: 'day', xType: 'day', series: ['onlineRate'] },
  fixed: { deviceId: IdSchema },
});
export const deviceOnlineDetailApi = analyticsApi(deviceOnlineDetailAnalytics);

/** A link change the detail lists: the device's own, or (for a meter) its DCU's, which it depends on. */
export const OnlineChangeRowSchema = z.object({
  at: moment('at'),
  state: linkState(),
  /** `dcu`: the change is its DCU's. */
  source: deviceKind(),
  deviceNo: field(z.string(), { label: label('deviceNo'), widget: 'text' }),
});
export type OnlineChangeRow = z.infer<typeof OnlineChangeRowSchema>;

export const deviceOnlineChangesApi = defineOperation({
  path: '/analytics/deviceOnlineDetail/changes',
  access: needs(NETWORK_RES.onlineDetail),
  tag: 'analytics/deviceOnlineDetail',
  summary: "A device's link changes in the period, and a meter's DCU's, newest first",
  request: withPeriod(PageQuerySchema.extend({ deviceId: IdSchema }), ONLINE_DETAIL_PERIOD),
  response: pageOf(OnlineChangeRowSchema),
});
