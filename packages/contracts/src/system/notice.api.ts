import { z } from 'zod';
import { defineOperation, needs } from '../common/operation';
import { RES } from '../permissions';

export const countunreadnoticenum = defineOperation({
  path: '/systemparameter/countunreadnoticenum',
  access: needs(RES.noticeSubscribe),
  tag: 'notice',
  summary: "How many of the caller's notices are unread",
  request: z.strictObject({}),
  response: z.object({ count: z.number().int() }),
});

/** Browser topic of a user's unread count; messages are `{count}`. */
export const noticeUnreadTopic = (username: string) => `notice/${username}/unread`;

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
