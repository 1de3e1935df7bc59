import { RESULT, settingsApi, type TariffConfig } from '@meterdesk/contracts';
import { asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { sysDataItem, sysParameter, sysTariffConfig, sysUser } from '../../db/schema';
import { ApiError, fieldError, notFound } from '../../http/api-error';
import { registerOperation } from '../../http/operation';
import type { Mailer } from '../../mail/mailer';
import type { LogRetentionSetting } from './log-retention';

export const COMMAND_TIMEOUT_KEY = 'commandTimeout';
export const DEFAULT_COMMAND_TIMEOUT_S = 30;

const toTariffConfig = (r: typeof sysTariffConfig.$inferSelect): TariffConfig => ({
  id: r.id,
  tariffValidCount: r.tariffValidCount,
  tariffDays: r.tariffDays,
  tariffWeeks: r.tariffWeeks,
  tariffSeasons: r.tariffSeasons,
  tariffSpecialDays: r.tariffSpecialDays,
});

/** Settings are single rows or key/value parameters: the queries are one line each, so they live here. */
export function registerSettingsRoutes(
  app: FastifyInstance,
  deps: { db: Db; mailer: Mailer; logRetention: LogRetentionSetting },
): void {
  const { db, mailer, logRetention } = deps;

  registerOperation(app, settingsApi.getsmtpconf, () => mailer.publicSettings());
  registerOperation(app, settingsApi.savesmtpconf, async ({ body }) => {
    await mailer.save(body);
    return null;
  });
  registerOperation(app, settingsApi.checkifcansendemail, async ({ body, session }) => {
    let to = body.to;
    if (!to) {
      const [me] = await db.select({ email: sysUser.email }).from(sysUser).where(eq(sysUser.id, session.userId));
      to = me?.email;
    }
    if (!to) throw fieldError(RESULT.badRequest, 'to', 'noRecipientEmail');
    await mailer.send(to, 'Meterdesk test e-mail', 'This message confirms that Meterdesk can send e-mail.');
    return { to };
  });

  const flags = {
    subMeterEventFlag: sysUser.subMeterEventFlag,
    subEmailFlag: sysUser.subEmailFlag,
    subMsgFlag: sysUser.subMsgFlag,
    subSpecialUserEventFlag: sysUser.subSpecialUserEventFlag,
    subExceptionFlag: sysUser.subExceptionFlag,
  };
  registerOperation(app, settingsApi.getsysusersubscribeconf, async ({ session }) => {
    const [row] = await db.select(flags).from(sysUser).where(eq(sysUser.id, session.userId));
    if (!row) throw notFound();
    return row;
  });
  registerOperation(app, settingsApi.updatesysUsersubscribeconf, async ({ body, session }) => {
    await db.update(sysUser).set(body).where(eq(sysUser.id, session.userId));
    return null;
  });

  registerOperation(app, settingsApi.listdataitemconf, () =>
    db.select().from(sysDataItem).orderBy(asc(sysDataItem.orderNum), asc(sysDataItem.obis)),
  );
  registerOperation(app, settingsApi.savedataitemconf, async ({ body }) => {
    await db.transaction(async (tx) => {
      for (const item of body.items) {
        const updated = await tx
          .update(sysDataItem)
          .set({ enabled: item.enabled, orderNum: item.orderNum })
          .where(eq(sysDataItem.id, item.id))
          .returning({ id: sysDataItem.id });
        if (updated.length === 0) throw notFound();
      }
    });
    return null;
  });

  registerOperation(app, settingsApi.gettariffconfiglist, async () =>
    (await db.select().from(sysTariffConfig)).map(toTariffConfig),
  );
  registerOperation(app, settingsApi.savetariffconfig, async ({ body }) => {
    if ((await db.select({ id: sysTariffConfig.id }).from(sysTariffConfig)).length > 0) {
      throw new ApiError(RESULT.conflict, 'existed');
    }
    const id = newId();
    await db.insert(sysTariffConfig).values({ id, ...body });
    return { id };
  });
  registerOperation(app, settingsApi.updatetariffconfig, async ({ body: { id, ...values } }) => {
    const updated = await db
      .update(sysTariffConfig)
      .set({ ...values, updateTime: new Date() })
      .where(eq(sysTariffConfig.id, id))
      .returning({ id: sysTariffConfig.id });
    if (updated.length === 0) throw notFound();
    return null;
  });

  registerOperation(app, settingsApi.gettimeout, async () => {
    const [row] = await db.select().from(sysParameter).where(eq(sysParameter.key, COMMAND_TIMEOUT_KEY));
    return { timeout: (row?.value as { timeout?: number } | undefined)?.timeout ?? DEFAULT_COMMAND_TIMEOUT_S };
  });
  registerOperation(app, settingsApi.updatetimeout, async ({ body }) => {
    await db
      .insert(sysParameter)
      .values({ key: COMMAND_TIMEOUT_KEY, value: body })
      .onConflictDoUpdate({ target: sysParameter.key, set: { value: body, updateTime: new Date() } });
    return null;
  });

  registerOperation(app, settingsApi.getlogretention, async () => ({ days: await logRetention.days() }));
  registerOperation(app, settingsApi.updatelogretention, async ({ body }) => {
    await logRetention.save(body.days);
    return null;
  });
}
