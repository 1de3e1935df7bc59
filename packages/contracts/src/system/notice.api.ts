import { z } from 'zod';
import { defineEntity, field } from '../common/entity';
import { IdSchema } from '../common/ids';
import { contains, equals, listQuerySchema } from '../common/list';
import { defineOperation, needs } from '../common/operation';
import { pageOf } from '../common/paging';
import { nameText } from '../common/validation';
import { RES } from '../permissions';
import { usernameText } from './user.schema';

export const countunreadnoticenum = defineOperation({
  path: '/systemparameter/countunreadnoticenum',
  access: needs(RES.noticeSubscribe, RES.notifyMGT),
  tag: 'notice',
  summary: "How many of the caller's notices are unread",
  request: z.strictObject({}),
  response: z.object({ count: z.number().int() }),
});

export { noticeUnreadTopic } from '../common/topics';

/** `GET /static-config/mqtt.json`: how the browser reaches the broker (spec §7). */
export const MqttConfigSchema = z.object({
  url: z
    .string()
    .nullable()
    .describe('A path on this server (embedded broker) or a ws(s):// URL; null when browsers have no broker'),
  protocolVersion: z.literal(4),
  topics: z.object({ unread: z.string().describe('Per-user unread-count topic; {username} is replaced') }),
});
export type MqttConfig = z.infer<typeof MqttConfigSchema>;

export const NOTICE_TYPES = [0, 1, 2] as const;
const noticeType = () =>
  field(
    z
      .union(
        NOTICE_TYPES.map((t) => z.literal(t)),
        'invalidValue',
      )
      .default(0),
    {
      label: 'notice.fields.noticeType',
      widget: 'select',
      options: NOTICE_TYPES.map((value) => ({ value, label: `notice.types.${value}` })),
    },
  );

export const NoticeSchema = z.object({
  id: IdSchema,
  noticeBatchId: IdSchema,
  noticeType: noticeType(),
  noticeTitle: field(z.string(), { widget: 'text' }),
  noticeContent: field(z.string(), { widget: 'textarea' }),
  sendUsername: field(z.string(), { widget: 'text' }),
  recUsername: field(z.string(), { widget: 'text' }),
  noticeFlag: field(z.union([z.literal(0), z.literal(1)]), {
    widget: 'select',
    options: [
      { value: 0, label: 'notice.flags.0' },
      { value: 1, label: 'notice.flags.1' },
    ],
  }),
  sendTime: field(z.string(), { widget: 'datetime' }),
  readTime: field(z.string(), { widget: 'datetime' }),
});
export type Notice = z.infer<typeof NoticeSchema>;

export const noticeEntity = defineEntity({
  name: 'notice',
  record: NoticeSchema,
  pagePath: '/sysMGT/notifyMGT',
  columns: [
    { field: 'noticeTitle' },
    { field: 'noticeType', width: 120 },
    { field: 'sendUsername', width: 140 },
    { field: 'noticeFlag', width: 100 },
    { field: 'sendTime', width: 180 },
  ],
  filters: [equals('noticeFlag', z.union([z.literal(0), z.literal(1)], 'invalidValue'))],
  form: [],
  detail: ['noticeTitle', 'noticeType', 'noticeContent', 'sendUsername', 'sendTime', 'noticeFlag', 'readTime'],
});

export const NoticeTemplateSchema = z.object({
  id: IdSchema,
  templateName: z.string(),
  noticeType: z.number().int(),
  noticeTitle: z.string(),
  noticeContent: z.string(),
});

export const NoticeSendSchema = z.strictObject({
  noticeType: noticeType(),
  noticeTitle: field(nameText(200), { label: 'notice.fields.noticeTitle', widget: 'text' }),
  noticeContent: field(z.string().trim().max(5000, 'tooLong').default(''), {
    label: 'notice.fields.noticeContent',
    widget: 'textarea',
  }),
  recUsernameList: field(z.array(usernameText()).min(1, 'mandatory').max(1000, 'tooLong'), {
    label: 'notice.fields.recUsernameList',
    widget: 'select',
    lookup: 'users',
    multiple: true,
  }),
  sendEmail: field(z.boolean().default(false), { label: 'notice.fields.sendEmail', widget: 'switch' }),
});
export type NoticeSend = z.infer<typeof NoticeSendSchema>;

/** A sent batch: its notice's fields, how many received it and how many read it. */
export const NoticeBatchSchema = z.object({
  noticeBatchId: IdSchema,
  noticeType: NoticeSchema.shape.noticeType,
  noticeTitle: NoticeSchema.shape.noticeTitle,
  sendUsername: NoticeSchema.shape.sendUsername,
  sendTime: NoticeSchema.shape.sendTime,
  total: field(z.number().int(), { widget: 'number' }),
  readCount: field(z.number().int(), { widget: 'number' }),
});

/** The sent-batches list: filtered by title, newest first. */
export const noticeBatchEntity = defineEntity({
  name: noticeEntity.name,
  record: NoticeBatchSchema,
  pagePath: noticeEntity.pagePath,
  columns: [
    { field: 'noticeTitle' },
    { field: 'noticeType', width: 120 },
    { field: 'sendUsername', width: 140 },
    { field: 'sendTime', width: 180 },
    { field: 'total', width: 100 },
    { field: 'readCount', width: 100 },
  ],
  filters: [contains('noticeTitle', 200)],
  form: [],
  detail: ['noticeTitle', 'noticeType', 'sendUsername', 'sendTime', 'total', 'readCount'],
});

export const getnoticetemplatepage = defineOperation({
  path: '/systemparameter/getnoticetemplatepage',
  access: needs(RES.noticeSend, RES.noticeAnnouncement),
  tag: 'notice',
  summary: 'Notice templates, paged',
  request: listQuerySchema([], []),
  response: pageOf(NoticeTemplateSchema),
});

export const sendnoticebath = defineOperation({
  path: '/systemparameter/sendnoticebath',
  access: needs(RES.noticeSend),
  tag: 'notice',
  summary: "Send a notice to users (one batch); each recipient's badge updates at once; optionally by e-mail too",
  request: NoticeSendSchema,
  response: z.object({ noticeBatchId: IdSchema, emailFailures: z.array(z.string()) }),
  audit: 'add',
});

export const getnoticebatchpage = defineOperation({
  path: '/systemparameter/getnoticebatchpage',
  access: needs(RES.notifyMGT),
  tag: 'notice',
  summary: 'Sent notice batches with how many recipients read them, newest first',
  request: noticeBatchEntity.listQuery,
  response: pageOf(NoticeBatchSchema),
});

export const getnoticereaddetaillist = defineOperation({
  path: '/systemparameter/getnoticereaddetaillist',
  access: needs(RES.notifyMGT),
  tag: 'notice',
  summary: 'Who received a batch and who read it',
  request: z.strictObject({ noticeBatchId: IdSchema }),
  response: z.array(NoticeSchema),
});

export const getnoticelogpageforcurrentuser = defineOperation({
  path: '/systemparameter/getnoticelogpageforcurrentuser',
  access: needs(RES.noticeSubscribe, RES.notifyMGT),
  tag: 'notice',
  summary: "The caller's notices, newest first",
  request: noticeEntity.listQuery,
  response: pageOf(NoticeSchema),
});

export const readnotice = defineOperation({
  path: '/systemparameter/readnotice',
  access: needs(RES.noticeSubscribe, RES.notifyMGT),
  tag: 'notice',
  summary: "Mark one of the caller's notices read; the badge updates at once",
  request: z.strictObject({ id: IdSchema }),
  response: z.null(),
  audit: 'update',
});
