import { type Notice, type NoticeSend, noticeBatchEntity, noticeEntity } from '@meterdesk/contracts';
import { and, desc, eq, inArray, max, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Executor } from '../../db/driver';
import { newId } from '../../db/ids';
import { defineList, listPage, listWhere, selectSource } from '../../db/list';
import { pageWindow } from '../../db/paging';
import { countAll, iso } from '../../db/rows';
import { sysNotice, sysNoticeTemplate, sysUser } from '../../db/schema';

/** Notices name their users: a renamed user keeps theirs, sent and received. */
export async function renameInNotices(db: Executor, from: string, to: string): Promise<void> {
  await db.update(sysNotice).set({ recUsername: to }).where(eq(sysNotice.recUsername, from));
  await db.update(sysNotice).set({ sendUsername: to }).where(eq(sysNotice.sendUsername, from));
}

const noticeTypeOf = (stored: number | null): Notice['noticeType'] => (stored === 1 ? 1 : stored === 2 ? 2 : 0);

const toNotice = (n: typeof sysNotice.$inferSelect): Notice => ({
  id: n.id,
  noticeBatchId: n.noticeBatchId,
  noticeType: noticeTypeOf(n.noticeType),
  noticeTitle: n.noticeTitle,
  noticeContent: n.noticeContent,
  sendUsername: n.sendUsername,
  recUsername: n.recUsername,
  noticeFlag: n.noticeFlag === 1 ? 1 : 0,
  sendTime: iso(n.sendTime),
  readTime: iso(n.readTime),
});

type Paging = { pageSize: number; curPage: number };

const NOTICE_LIST = defineList({
  entity: noticeEntity,
  columns: { noticeFlag: sysNotice.noticeFlag },
  defaultOrder: desc(sysNotice.sendTime),
  tieBreak: sysNotice.id,
});

const NOTICE_BATCH_LIST = defineList({
  entity: noticeBatchEntity,
  columns: { noticeTitle: sysNotice.noticeTitle },
  defaultOrder: desc(max(sysNotice.sendTime)),
  tieBreak: sysNotice.noticeBatchId,
});

export class NoticeRepository {
  constructor(private readonly db: Executor) {}

  /** Notices to the users `userScope` (written against sys_user) admits; nothing for everyone. */
  recipientWithin(userScope: SQL | undefined): SQL | undefined {
    return (
      userScope &&
      inArray(sysNotice.recUsername, this.db.select({ username: sysUser.username }).from(sysUser).where(userScope))
    );
  }

  /** The named users the sender reaches (`userScope` is written against sys_user). */
  async recipients(usernames: string[], userScope: SQL | undefined) {
    return this.db
      .select({ username: sysUser.username, email: sysUser.email })
      .from(sysUser)
      .where(and(inArray(sysUser.username, usernames), userScope));
  }

  async insertBatch(batchId: string, sender: string, input: NoticeSend, recipients: string[]) {
    await this.db.insert(sysNotice).values(
      recipients.map((recUsername) => ({
        id: newId(),
        noticeBatchId: batchId,
        noticeType: input.noticeType,
        noticeTitle: input.noticeTitle,
        noticeContent: input.noticeContent,
        sendUsername: sender,
        recUsername,
      })),
    );
  }

  async unreadCount(username: string): Promise<number> {
    const [row] = await this.db
      .select({ n: countAll() })
      .from(sysNotice)
      .where(and(eq(sysNotice.recUsername, username), eq(sysNotice.noticeFlag, 0)));
    return row?.n ?? 0;
  }

  /** Marks the caller's own notice read; false when it is not theirs. */
  async markRead(id: string, username: string): Promise<boolean> {
    const rows = await this.db
      .update(sysNotice)
      .set({ noticeFlag: 1, readTime: sql`coalesce(${sysNotice.readTime}, now())` })
      .where(and(eq(sysNotice.id, id), eq(sysNotice.recUsername, username)))
      .returning({ id: sysNotice.id });
    return rows.length > 0;
  }

  forUser(username: string, q: z.infer<typeof noticeEntity.listQuery>) {
    return listPage(
      NOTICE_LIST,
      q,
      selectSource(this.db, { select: () => this.db.select().from(sysNotice), map: toNotice, countFrom: sysNotice }),
      eq(sysNotice.recUsername, username),
    );
  }

  async batch(batchId: string, recipientScope: SQL | undefined) {
    const rows = await this.db
      .select()
      .from(sysNotice)
      .where(and(eq(sysNotice.noticeBatchId, batchId), recipientScope))
      .orderBy(sysNotice.recUsername);
    return rows.map(toNotice);
  }

  async batches(q: Paging & { noticeTitle?: string | undefined }, recipientScope: SQL | undefined) {
    const where = and(listWhere(NOTICE_BATCH_LIST, q), recipientScope);
    const { limit, offset } = pageWindow(q);
    const sendTime = max(sysNotice.sendTime);
    const [rows, [counted]] = await Promise.all([
      this.db
        .select({
          noticeBatchId: sysNotice.noticeBatchId,
          noticeType: max(sysNotice.noticeType),
          noticeTitle: max(sysNotice.noticeTitle),
          sendUsername: max(sysNotice.sendUsername),
          sendTime,
          total: countAll(),
          readCount: sql<number>`count(*) filter (where ${sysNotice.noticeFlag} = 1)`.mapWith(Number),
        })
        .from(sysNotice)
        .where(where)
        .groupBy(sysNotice.noticeBatchId)
        .orderBy(desc(sendTime), desc(sysNotice.noticeBatchId))
        .limit(limit)
        .offset(offset),
      this.db
        .select({ total: sql<number>`count(distinct ${sysNotice.noticeBatchId})`.mapWith(Number) })
        .from(sysNotice)
        .where(where),
    ]);
    return {
      list: rows.map((r) => ({
        noticeBatchId: r.noticeBatchId,
        noticeType: noticeTypeOf(r.noticeType),
        noticeTitle: r.noticeTitle ?? '',
        sendUsername: r.sendUsername ?? '',
        sendTime: iso(r.sendTime),
        total: r.total,
        readCount: r.readCount,
      })),
      total: counted?.total ?? 0,
    };
  }

  async templates(q: Paging) {
    const { limit, offset } = pageWindow(q);
    const [rows, [counted]] = await Promise.all([
      this.db.select().from(sysNoticeTemplate).orderBy(sysNoticeTemplate.orderNum).limit(limit).offset(offset),
      this.db.select({ total: countAll() }).from(sysNoticeTemplate),
    ]);
    return {
      list: rows.map(({ orderNum: _order, ...t }) => t),
      total: counted?.total ?? 0,
    };
  }
}
