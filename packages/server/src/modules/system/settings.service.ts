import { RESULT, type settingsApi, type TariffConfig, type TouLimits } from '@meterdesk/contracts';
import { asc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { sysDataItem, sysParameter, sysTariffConfig, sysUser } from '../../db/schema';
import { ApiError, fieldError, notFound } from '../../errors/api-error';
import type { SessionContext } from '../../http/operation';
import type { Mailer } from '../../mail/mailer';
import type { LogRetentionSetting } from './log-retention';

export const COMMAND_TIMEOUT_KEY = 'commandTimeout';
export const DEFAULT_COMMAND_TIMEOUT_S = 30;

type Body<Op extends { request: z.ZodType }> = z.output<Op['request']>;

const toTariffConfig = (r: typeof sysTariffConfig.$inferSelect): TariffConfig => ({
  id: r.id,
  tariffValidCount: r.tariffValidCount,
  tariffDays: r.tariffDays,
  tariffWeeks: r.tariffWeeks,
  tariffSeasons: r.tariffSeasons,
  tariffSpecialDays: r.tariffSpecialDays,
});

const SUBSCRIPTION_FLAGS = {
  subMeterEventFlag: sysUser.subMeterEventFlag,
  subEmailFlag: sysUser.subEmailFlag,
  subMsgFlag: sysUser.subMsgFlag,
  subSpecialUserEventFlag: sysUser.subSpecialUserEventFlag,
  subExceptionFlag: sysUser.subExceptionFlag,
};

/**
 * System settings: single rows and key/value parameters. Everything that reads a setting (the
 * head-end's command time-out, the retention job) reads it here.
 */
export class SettingsService {
  constructor(
    private readonly db: Db,
    readonly mailer: Mailer,
    readonly logRetention: LogRetentionSetting,
  ) {}

  /** A test e-mail to `to`, or to the caller's own address. */
  async sendTestEmail(session: SessionContext, to: string | undefined): Promise<{ to: string }> {
    let recipient = to;
    if (!recipient) {
      const [me] = await this.db.select({ email: sysUser.email }).from(sysUser).where(eq(sysUser.id, session.userId));
      recipient = me?.email;
    }
    if (!recipient) throw fieldError(RESULT.badRequest, 'to', 'noRecipientEmail');
    await this.mailer.send(recipient, 'Meterdesk test e-mail', 'This message confirms that Meterdesk can send e-mail.');
    return { to: recipient };
  }

  async subscription(userId: string) {
    const [row] = await this.db.select(SUBSCRIPTION_FLAGS).from(sysUser).where(eq(sysUser.id, userId));
    if (!row) throw notFound();
    return row;
  }

  async saveSubscription(userId: string, flags: Body<typeof settingsApi.updatesysUsersubscribeconf>) {
    await this.db.update(sysUser).set(flags).where(eq(sysUser.id, userId));
  }

  dataItems() {
    return this.db.select().from(sysDataItem).orderBy(asc(sysDataItem.orderNum), asc(sysDataItem.obis));
  }

  async saveDataItems(items: Body<typeof settingsApi.savedataitemconf>['items']) {
    await this.db.transaction(async (tx) => {
      for (const item of items) {
        const updated = await tx
          .update(sysDataItem)
          .set({ enabled: item.enabled, orderNum: item.orderNum })
          .where(eq(sysDataItem.id, item.id))
          .returning({ id: sysDataItem.id });
        if (updated.length === 0) throw notFound();
      }
    });
  }

  async tariffConfigs() {
    return (await this.db.select().from(sysTariffConfig)).map(toTariffConfig);
  }

  /**
   * The TOU limitation settings a tariff's calendar is bounded by; none while no row is saved (the
   * calendar's own rules still apply).
   */
  async touLimits(): Promise<TouLimits | undefined> {
    const [row] = await this.db.select().from(sysTariffConfig).limit(1);
    return row && toTariffConfig(row);
  }

  /** One set of TOU limits exists at most. */
  async saveTariffConfig(values: Body<typeof settingsApi.savetariffconfig>): Promise<{ id: string }> {
    if ((await this.db.select({ id: sysTariffConfig.id }).from(sysTariffConfig)).length > 0) {
      throw new ApiError(RESULT.conflict, 'existed');
    }
    const id = newId();
    await this.db.insert(sysTariffConfig).values({ id, ...values });
    return { id };
  }

  async updateTariffConfig({ id, ...values }: Body<typeof settingsApi.updatetariffconfig>) {
    const updated = await this.db
      .update(sysTariffConfig)
      .set({ ...values, updateTime: new Date() })
      .where(eq(sysTariffConfig.id, id))
      .returning({ id: sysTariffConfig.id });
    if (updated.length === 0) throw notFound();
  }

  /** Seconds the head-end waits for a device's answer. */
  async commandTimeout(): Promise<number> {
    const [row] = await this.db.select().from(sysParameter).where(eq(sysParameter.key, COMMAND_TIMEOUT_KEY));
    return (row?.value as { timeout?: number } | undefined)?.timeout ?? DEFAULT_COMMAND_TIMEOUT_S;
  }

  async saveCommandTimeout(value: Body<typeof settingsApi.updatetimeout>) {
    await this.db
      .insert(sysParameter)
      .values({ key: COMMAND_TIMEOUT_KEY, value })
      .onConflictDoUpdate({ target: sysParameter.key, set: { value, updateTime: new Date() } });
  }
}
