import { z } from 'zod';
import { callPath } from './api-client';

/*
 * Calls the server answers that the contracts do not declare yet. Each one belongs in
 * packages/contracts; once it is there, call it through callApi and delete it here.
 */

export const UNREAD_NOTICE_COUNT_PATH = '/systemparameter/countunreadnoticenum';

export function fetchUnreadNoticeCount(signal?: AbortSignal): Promise<{ count: number }> {
  return callPath(UNREAD_NOTICE_COUNT_PATH, {}, z.object({ count: z.number().int() }), { signal });
}
