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
