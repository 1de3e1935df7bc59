import { noticeApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { pageResult } from '../../db/paging';
import { registerOperation } from '../../http/operation';
import type { NoticeService } from './notice.service';

export function registerNoticeRoutes(app: FastifyInstance, deps: { notices: NoticeService }): void {
  const { notices } = deps;
  registerOperation(app, noticeApi.countunreadnoticenum, async ({ session }) => ({
    count: await notices.unreadCount(session.username),
  }));
  // It e-mails each recipient in turn when asked, for as long as the SMTP server takes.
  registerOperation(app, noticeApi.sendnoticebath, ({ session, body }) => notices.send(session, body), {
    outsideTransaction: true,
  });
  registerOperation(app, noticeApi.readnotice, async ({ session, body }) => {
    await notices.read(session, body.id);
    return null;
  });
  registerOperation(app, noticeApi.getnoticelogpageforcurrentuser, ({ session, body }) =>
    notices.forUser(session.username, body),
  );
  registerOperation(app, noticeApi.getnoticebatchpage, async ({ body, session }) =>
    pageResult(body, await notices.batches(body, session)),
  );
  registerOperation(app, noticeApi.getnoticereaddetaillist, ({ body, session }) =>
    notices.batch(body.noticeBatchId, session),
  );
  registerOperation(app, noticeApi.getnoticetemplatepage, async ({ body }) =>
    pageResult(body, await notices.templates(body)),
  );
}
