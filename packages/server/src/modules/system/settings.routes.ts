import { settingsApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { registerOperation } from '../../http/operation';
import type { ReadingRetentionSetting } from '../../readings/retention';
import type { SettingsService } from './settings.service';

export function registerSettingsRoutes(
  app: FastifyInstance,
  deps: { settings: SettingsService; readingRetention: ReadingRetentionSetting },
): void {
  const { settings, readingRetention } = deps;
  const { mailer, logRetention } = settings;

  registerOperation(app, settingsApi.getsmtpconf, () => mailer.publicSettings());
  registerOperation(app, settingsApi.savesmtpconf, async ({ body }) => {
    await mailer.save(body);
    return null;
  });
  registerOperation(
    app,
    settingsApi.checkifcansendemail,
    ({ body, session }) => settings.sendTestEmail(session, body.to),
    // It waits on the SMTP server, for as long as that takes to answer.
    { outsideTransaction: true },
  );

  registerOperation(app, settingsApi.getsysusersubscribeconf, ({ session }) => settings.subscription(session.userId));
  registerOperation(app, settingsApi.updatesysUsersubscribeconf, async ({ body, session }) => {
    await settings.saveSubscription(session.userId, body);
    return null;
  });

  registerOperation(app, settingsApi.listdataitemconf, () => settings.dataItems());
  registerOperation(app, settingsApi.savedataitemconf, async ({ body }) => {
    await settings.saveDataItems(body.items);
    return null;
  });

  registerOperation(app, settingsApi.gettariffconfiglist, () => settings.tariffConfigs());
  registerOperation(app, settingsApi.savetariffconfig, ({ body }) => settings.saveTariffConfig(body));
  registerOperation(app, settingsApi.updatetariffconfig, async ({ body }) => {
    await settings.updateTariffConfig(body);
    return null;
  });

  registerOperation(app, settingsApi.gettimeout, async () => ({ timeout: await settings.commandTimeout() }));
  registerOperation(app, settingsApi.updatetimeout, async ({ body }) => {
    await settings.saveCommandTimeout(body);
    return null;
  });

  registerOperation(app, settingsApi.getlogretention, async () => ({ days: await logRetention.days() }));
  registerOperation(app, settingsApi.updatelogretention, async ({ body }) => {
    await logRetention.save(body.days);
    return null;
  });

  registerOperation(app, settingsApi.getreadingsretention, async () => ({ months: await readingRetention.months() }));
  registerOperation(app, settingsApi.updatereadingsretention, async ({ body }) => {
    await readingRetention.save(body.months);
    return null;
  });
}
