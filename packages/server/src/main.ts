import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from './app';
import { loadConfig } from './config';
import { SecretBox } from './crypto/secret-box';
import { resolveSecretKey } from './crypto/secret-key';
import { DataDirLocked } from './db/data-dir-lock';
import { openDatabase } from './db/driver';
import { launchSimulator, type SimulatorProcess } from './headend/simulator-process';
import { createLogger } from './logger';
import { type Broker, connectExternalBroker, startEmbeddedBroker } from './mqtt/broker';
import { queueDemoHistory } from './seed/demo-history';
import { seed } from './seed/seed';

async function main(): Promise<void> {
  const config = loadConfig();
  // Whatever the server writes (database files, keys, the first password) is for the service user alone.
  process.umask(0o077);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, holder: 'server' });
  await database.migrate();
  const secretKey = resolveSecretKey(config);
  const seeded = await seed(database.db, {
    adminPassword: config.adminPassword,
    operatorPassword: config.operatorPassword,
    demo: { when: config.demoArchive, box: new SecretBox(secretKey) },
  });

  const log = createLogger(config.logLevel);
  const broker: Broker = config.mqttUrl
    ? await connectExternalBroker(config.mqttUrl, { clientId: config.mqttClientId })
    : await startEmbeddedBroker({ tcpPort: config.mqttTcpPort, log });

  const app = await buildApp({ config, database, broker, secretKey, logger: log });
  if (seeded.unmappedTariffTexts)
    log.warn(
      { count: seeded.unmappedTariffTexts },
      'meters or POCs hold tariff texts that name no tariff: see the table tariff_unmapped (docs/operations.md)',
    );
  if (seeded.demoArchive) log.info('demo archive added (a first start with DEMO=off begins with an empty archive)');
  if (!config.captchaEnabled) log.warn('CAPTCHA=off: any captcha answer is accepted. Never run production like this.');
  if (seeded.generatedAdminPassword) {
    const file = path.join(config.dataDir, 'initial-admin-password');
    writeFileSync(file, `${seeded.generatedAdminPassword}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    console.warn(
      `\n  First start: user "admin", password "${seeded.generatedAdminPassword}" (also in ${file}).\n  Change it after logging in.\n`,
    );
  }

  await app.jobs.start();
  await app.headEnd.start();
  await app.tariffPushes.reconcile();
  await app.prepaid.reconcile();
  await app.deviceReadings.start();

  let simulator: SimulatorProcess | null = null;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await simulator?.stop();
    await app.http.close();
    await app.headEnd.stop();
    await app.deviceReadings.stop();
    await app.readingIngest.stop();
    await app.liveDevices.stop();
    await app.jobs.stop();
    await broker.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  await app.http.listen({ port: config.port, host: config.host });
  log.info(
    {
      database: database.kind,
      broker: broker.kind,
      mqttTcpPort: broker.tcpPort,
    },
    `Meterdesk is ready on http://localhost:${config.port}`,
  );
  if (config.simulator && !stopping) {
    simulator = await launchSimulator({
      config,
      broker,
      db: database.db,
      credentials: app.deviceCredentials,
      log,
    }).catch((err: unknown) => {
      log.error({ err }, 'simulator not started');
      return null;
    });
    if (stopping) await simulator?.stop();
    app.simulatedOutages.attach(simulator);
  }
  // The demo's month of history is read from the simulated devices: without them there is none to read.
  if (seeded.demoArchive && simulator && config.demoHistoryDays > 0 && !stopping) {
    await queueDemoHistory(app.jobs, config.demoHistoryDays).then(
      () =>
        log.info(
          { days: config.demoHistoryDays },
          'demo history: collecting from the simulated fleet in the background',
        ),
      (err: unknown) => log.error({ err }, 'demo history not queued'),
    );
  }
}

main().catch((err) => {
  // A held data directory is the operator's situation, not a fault: the sentence says it all.
  console.error(err instanceof DataDirLocked ? err.message : err);
  process.exit(1);
});
