import { type NoticeSend, noticeUnreadTopic, RESULT } from '@meterdesk/contracts';
import type { SQL } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { afterCommit } from '../../db/ambient';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { sysUser } from '../../db/schema';
import { ApiError, fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import type { Mailer } from '../../mail/mailer';
import type { Broker } from '../../mqtt/broker';
import { orgScope, resolveScope } from '../../rbac/scope';
import { NoticeRepository } from './notice.repository';

export class NoticeService {
  constructor(
    private readonly db: Db,
    private readonly broker: Broker,
    private readonly mailer: Mailer,
    private readonly log: FastifyBaseLogger,
  ) {}

  private repo() {
    return new NoticeRepository(this.db);
  }

  unreadCount(username: string) {
    return this.repo().unreadCount(username);
  }

  /**
   * Pushes a user's unread count to their browser, once the request's change has committed (the count
   * is read then); a broker hiccup must not fail the request that caused it.
   */
  publishCount(username: string): Promise<void> {
    return afterCommit(() => this.publishCountNow(username));
  }

  private async publishCountNow(username: string): Promise<void> {
    try {
      await this.broker.publish(noticeUnreadTopic(username), { count: await this.unreadCount(username) });
    } catch (err) {
      this.log.warn({ err, username }, 'unread count could not be published');
    }
  }

  /**
   * Writes the whole batch or nothing, then pushes each recipient's new count, then e-mails
   * the recipients when asked. A recipient whose e-mail fails is named in `emailFailures`;
   * the notices themselves stay sent.
   */
  async send(sender: SessionContext, input: NoticeSend) {
    const usernames = [...new Set(input.recUsernameList)];
    const recipients = await this.repo().recipients(usernames, orgScope(await this.scopeOf(sender), sysUser.orgId));
    if (recipients.length !== usernames.length) throw fieldError(RESULT.badRequest, 'recUsernameList', 'userNotFound');
    if (input.sendEmail && !(await this.mailer.isConfigured()))
      throw new ApiError(RESULT.badRequest, 'reconfigureSmtp');

    const noticeBatchId = newId();
    await this.db.transaction((tx) =>
      new NoticeRepository(tx).insertBatch(noticeBatchId, sender.username, input, usernames),
    );
    await Promise.all(usernames.map((u) => this.publishCount(u)));

    const emailFailures: string[] = [];
    if (input.sendEmail) {
      for (const r of recipients) {
        try {
          if (!r.email) throw new Error('no e-mail address');
          await this.mailer.send(r.email, input.noticeTitle, input.noticeContent);
        } catch (err) {
          this.log.warn({ err, username: r.username }, 'notice e-mail not sent');
          emailFailures.push(r.username);
        }
      }
    }
    return { noticeBatchId, emailFailures };
  }

  async read(caller: SessionContext, id: string): Promise<void> {
    if (!(await this.repo().markRead(id, caller.username))) throw notFound();
    await this.publishCount(caller.username);
  }

  forUser(username: string, q: Parameters<NoticeRepository['forUser']>[1]) {
    return this.repo().forUser(username, q);
  }

  /**
   * Senders see what they sent to the users they reach; a batch is shown through the recipients
   * within the caller's organisations, so a notice to another organisation stays out of sight.
   */
  async batches(q: Parameters<NoticeRepository['batches']>[0], caller: SessionContext) {
    return this.repo().batches(q, await this.recipientScope(caller));
  }

  async batch(batchId: string, caller: SessionContext) {
    const notices = await this.repo().batch(batchId, await this.recipientScope(caller));
    if (notices.length === 0) throw notFound();
    return notices;
  }

  private scopeOf(caller: SessionContext) {
    return resolveScope(this.db, caller.userId);
  }

  private async recipientScope(caller: SessionContext): Promise<SQL | undefined> {
    return this.repo().recipientWithin(orgScope(await this.scopeOf(caller), sysUser.orgId));
  }

  templates(q: Parameters<NoticeRepository['templates']>[0]) {
    return this.repo().templates(q);
  }
}
