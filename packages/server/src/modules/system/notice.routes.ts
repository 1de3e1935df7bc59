import { noticeApi } from '@meterdesk/contracts';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { countAll } from '../../db/rows';
import { sysNotice } from '../../db/schema';
import { registerOperation } from '../../http/operation';

export function registerNoticeRoutes(app: FastifyInstance, deps: { db: Db }): void {
  registerOperation(app, noticeApi.countunreadnoticenum, async ({ session }) => {
    const [row] = await deps.db
      .select({ count: countAll() })
      .from(sysNotice)
      .where(and(eq(sysNotice.recUsername, session.username), eq(sysNotice.noticeFlag, 0)));
    return { count: row?.count ?? 0 };
  });
}
