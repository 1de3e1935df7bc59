import { z } from 'zod';
import { defineEntity, field } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, dateRange, equals } from '../common/list';
import { defineOperation, needs, SESSION } from '../common/operation';
import { CursorQuerySchema, pageOf } from '../common/paging';
import { RES } from '../permissions';

export const LOG_TYPES = ['visit', 'login', 'operation'] as const;
export const LOG_LEVELS = ['info', 'warn', 'error'] as const;
/** Who acted: a signed-in user, a background job, or (with the head-end) a device. */
export const ACTOR_KINDS = ['user', 'job', 'device'] as const;
export const OPERATING_TYPES = ['login', 'logout', 'add', 'update', 'delete', 'visit', 'other'] as const;
/** spec §5: a date range is limited to a number of days. */
export const MAX_LOG_RANGE_DAYS = 31;

const select = (name: string, values: readonly string[]) =>
  field(z.enum(values as [string, ...string[]], 'invalidValue'), {
    label: `syslog.fields.${name}`,
    widget: 'select',
    options: values.map((value) => ({ value, label: `syslog.${name}s.${value}` })),
  });

export const SystemLogSchema = z.object({
  id: IdSchema,
  logType: select('logType', LOG_TYPES),
  actorKind: select('actorKind', ACTOR_KINDS),
  username: field(z.string(), { widget: 'text' }),
  operatingType: select('operatingType', OPERATING_TYPES),
  logLevel: select('logLevel', LOG_LEVELS),
  content: field(z.string(), { widget: 'text' }),
  result: field(z.number().int(), { widget: 'number' }),
  ip: field(z.string(), { widget: 'text' }),
  ua: field(z.string(), { widget: 'text' }),
  os: field(z.string(), { widget: 'text' }),
  browser: field(z.string(), { widget: 'text' }),
  requestUrl: field(z.string(), { widget: 'text' }),
  time: field(z.string(), { widget: 'datetime' }),
});
export type SystemLog = z.infer<typeof SystemLogSchema>;

export const systemLogEntity = defineEntity({
  name: 'syslog',
  record: SystemLogSchema,
  pagePath: '/sysMGT/sysJournal',
  columns: [
    { field: 'time', sortable: true, width: 180 },
    { field: 'logType', sortable: true, width: 110 },
    { field: 'actorKind', width: 90 },
    { field: 'username', sortable: true, width: 130 },
    { field: 'operatingType', sortable: true, width: 120 },
    { field: 'logLevel', width: 90 },
    { field: 'content' },
    { field: 'result', width: 90 },
    { field: 'ip', width: 130 },
    { field: 'os', width: 130 },
    { field: 'browser', width: 140 },
  ],
  filters: [
    equals('logType', z.enum(LOG_TYPES, 'invalidValue')),
    equals('actorKind', z.enum(ACTOR_KINDS, 'invalidValue')),
    contains('username', 50),
    equals('operatingType', z.enum(OPERATING_TYPES, 'invalidValue')),
    equals('logLevel', z.enum(LOG_LEVELS, 'invalidValue')),
    contains('content', 200),
    contains('ip', 64),
    dateRange('time', 'startTime', 'endTime', { required: true }),
  ],
  form: [],
  detail: [
    'time',
    'logType',
    'actorKind',
    'username',
    'operatingType',
    'logLevel',
    'content',
    'result',
    'ip',
    'ua',
    'os',
    'browser',
    'requestUrl',
  ],
});

export const SystemLogQuerySchema = systemLogEntity.listQuery.extend(CursorQuerySchema.shape);
export type SystemLogQuery = z.infer<typeof SystemLogQuerySchema>;

export const listsystemlog = defineOperation({
  path: '/systemlog/listsystemlog',
  access: needs(RES.sysJournal),
  tag: 'systemlog',
  summary: `Visit, login and operation logs within a time range of at most ${MAX_LOG_RANGE_DAYS} days, paged`,
  request: SystemLogQuerySchema,
  response: pageOf(SystemLogSchema),
});

export const exportsystemlog = defineOperation({
  path: '/systemlog/exportsystemlog',
  access: needs(RES.sysJournalExport),
  tag: 'systemlog',
  summary: 'The filtered logs as an Excel workbook (at most 100 000 rows); the answer is the file, not an envelope',
  request: SystemLogQuerySchema.omit({ pageSize: true, curPage: true, after: true }),
  response: z.unknown(),
  audit: 'other',
});

export const savevisitlog = defineOperation({
  path: '/systemlog/savevisitlog',
  access: SESSION,
  tag: 'systemlog',
  summary: 'Record that the caller opened a page',
  request: z.strictObject({
    pageUri: z.string().trim().min(1, 'mandatory').max(200, 'tooLong'),
    pageName: z.string().trim().max(100, 'tooLong').default(''),
  }),
  response: z.null(),
});
