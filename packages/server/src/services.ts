import type { FastifyBaseLogger } from 'fastify';
import { captchaPurgeJob, loginFailurePurgeJob, sessionPurgeJob } from './auth/auth.jobs';
import { AuthService } from './auth/auth.service';
import { CaptchaStore } from './auth/captcha';
import { LoginFailures } from './auth/login-failures';
import { SessionStore } from './auth/session';
import type { Config } from './config';
import { SecretBox } from './crypto/secret-box';
import type { Database } from './db/driver';
import { DEFAULT_HEADEND_OPTIONS, HeadEnd, type HeadEndOptions } from './headend/head-end';
import { JobSystem } from './jobs/job-system';
import { Mailer } from './mail/mailer';
import { createArchive, createImports } from './modules/archive/archive';
import { GisService } from './modules/archive/gis';
import { GisFinder } from './modules/archive/gis-find';
import { importJob } from './modules/archive/import/import-kit';
import { createCollection } from './modules/collection/collection';
import { CollectionReportService } from './modules/collection/collection-report.service';
import { ReadingsService } from './modules/collection/readings.service';
import { collectionDueJob, collectionRunJob } from './modules/collection/run.jobs';
import { RunService } from './modules/collection/run.service';
import { RunAnswers } from './modules/collection/run-answers';
import { RunBookkeeping } from './modules/collection/run-bookkeeping';
import { RunExecutor } from './modules/collection/run-executor';
import { RunScheduler } from './modules/collection/run-scheduler';
import { DashboardService } from './modules/dashboard/dashboard.service';
import { createFirmware } from './modules/firmware/firmware';
import { planRunJob } from './modules/operations/plan.jobs';
import { PlanService } from './modules/operations/plan.service';
import { TariffPushService } from './modules/operations/tariff-push.service';
import { OutageService } from './modules/outage/outage.service';
import { SimulatedOutages } from './modules/outage/simulated-outage';
import { EventCatalogue, ObisCatalogue } from './modules/parameter/obis-catalogue';
import { ParamTemplates } from './modules/parameter/param-template.archive';
import { createParameterCatalogues } from './modules/parameter/parameter';
import { billingReportJob, billingReportPurgeJob } from './modules/payment/billing-report';
import { createPayment, prepaidReconciliationJob } from './modules/payment/payment';
import { GroupService } from './modules/system/group';
import { LogRetentionSetting, logRetentionJob } from './modules/system/log-retention';
import { NoticeService } from './modules/system/notice.service';
import { OrgService } from './modules/system/org.service';
import { ResourceService } from './modules/system/resource.service';
import { RoleService } from './modules/system/role.service';
import { SettingsService } from './modules/system/settings.service';
import { SystemLogRepository } from './modules/system/syslog.repository';
import { UserService } from './modules/system/user';
import type { Broker } from './mqtt/broker';
import { DeviceCredentials } from './mqtt/device-credentials';
import { DeviceReadings } from './readings/device-data';
import { ReadingIngest } from './readings/ingest';
import { LiveDeviceFeed } from './readings/live-devices';
import { MeterLiveState } from './readings/live-state';
import { readingPartitionsJob } from './readings/partitions';
import { ReadingRetentionSetting, readingRetentionJob } from './readings/retention';
import { foldSoon, readingRollupsJob } from './readings/rollups';
import { ReadingWriter } from './readings/writer';
import { demoHistoryJob } from './seed/demo-history';

export interface ServiceDeps {
  config: Config;
  database: Database;
  broker: Broker;
  secretKey: Buffer;
  log: FastifyBaseLogger;
  /** How often idle job workers poll (tests shorten it). */
  jobPollingIntervalSeconds?: number | undefined;
  /** The head-end's pauses (tests shorten them). */
  headEndTiming?: Partial<Omit<HeadEndOptions, 'routeConcurrency'>> | undefined;
}

export type Services = ReturnType<typeof createServices>;

/**
 * The composition root: every service is built once, here, and routes, jobs and (next) the
 * head-end are handed the same instances.
 */
export function createServices({
  config,
  database,
  broker,
  secretKey,
  log,
  jobPollingIntervalSeconds,
  headEndTiming: timing,
}: ServiceDeps) {
  const headEndTiming = { ...DEFAULT_HEADEND_OPTIONS, ...timing };
  const { db } = database;
  const sessions = new SessionStore(db, config);
  const captchas = new CaptchaStore(db, secretKey);
  const loginFailures = new LoginFailures(config);
  const secrets = new SecretBox(secretKey);
  const mailer = new Mailer(db, secrets);
  const logRetention = new LogRetentionSetting(db, config.logRetentionDays);
  const jobs = new JobSystem(database, {
    log,
    publish: (topic, payload) => broker.publish(topic, payload),
    ...(jobPollingIntervalSeconds ? { pollingIntervalSeconds: jobPollingIntervalSeconds } : {}),
  });
  const imports = createImports(secrets);
  const settings = new SettingsService(db, mailer, logRetention);
  const headEnd = new HeadEnd(db, broker, log, { ...headEndTiming, routeConcurrency: config.headendDcuConcurrency });
  const obis = new ObisCatalogue(db);
  const plans = new PlanService(db, headEnd, jobs, obis, settings, config, new ParamTemplates(db));
  const tariffPushes = new TariffPushService(db, plans);
  headEnd.onDone(
    (row) => void tariffPushes.commandDone(row).catch((err) => log.error({ err }, 'tariff push answer not recorded')),
  );
  const readingRetention = new ReadingRetentionSetting(db, config.readingsRetentionMonths);
  const readingWriter = new ReadingWriter(database, readingRetention);
  const readingIngest = new ReadingIngest(readingWriter, log);
  // What a finished run stored, and a storm's events, are folded within seconds, not at the next minute.
  const fold = foldSoon(jobs, log);
  const runBookkeeping = new RunBookkeeping(db, fold);
  const runScheduler = new RunScheduler(db, jobs, runBookkeeping);
  const runAnswers = new RunAnswers(db, readingIngest, runBookkeeping);
  const runExecutor = new RunExecutor(db, headEnd, runScheduler, runAnswers, runBookkeeping);
  const liveState = new MeterLiveState(db, log);
  headEnd.onDone((row) => liveState.commandDone(row));
  const liveDevices = new LiveDeviceFeed(db, broker, log);
  const outages = new OutageService(db);
  liveDevices.follow({
    onLinkChange: (listener) => readingWriter.onLinkChange(listener),
    onPowerChange: (listener) => readingWriter.onPowerChange(listener),
  });
  readingWriter.onPowerChange(fold);
  const auth = new AuthService(db, sessions, captchas, config);
  const payment = createPayment({
    db,
    jobs,
    headEnd,
    auth,
    secrets,
    broker,
    log,
    prepaid: { deadlineSeconds: config.rechargeDeadlineSeconds },
  });
  headEnd.onDone(
    (row) => void payment.prepaid.commandDone(row).catch((err) => log.error({ err }, 'recharge answer not recorded')),
  );
  const firmware = createFirmware(db, headEnd, jobs, settings);
  jobs.register(
    ...firmware.jobs,
    planRunJob(db, headEnd, plans),
    importJob(database, () => imports),
    sessionPurgeJob(sessions),
    captchaPurgeJob(captchas),
    loginFailurePurgeJob(db, loginFailures),
    logRetentionJob(db, logRetention),
    billingReportJob(db, log),
    billingReportPurgeJob(db),
    readingPartitionsJob(db),
    readingRollupsJob(db),
    readingRetentionJob(db, readingRetention, log),
    collectionDueJob(runScheduler),
    collectionRunJob(runExecutor),
    demoHistoryJob(db, runScheduler, readingIngest, log),
    prepaidReconciliationJob(payment),
  );
  const collectionReport = new CollectionReportService(db);
  const collection = createCollection(db, settings);
  return {
    db,
    broker,
    sessions,
    captchas,
    jobs,
    auth,
    notices: new NoticeService(db, broker, mailer, log),
    settings,
    headEnd,
    plans,
    /** Tariff configuration: pushes of a tariff to meters, and what each meter took. */
    tariffPushes,
    /** Everything devices deliver goes through `readingIngest` (and so through `readingWriter`). */
    readingRetention,
    readingWriter,
    readingIngest,
    /** The broker side of the ingest: main.ts starts it with the head-end and stops it before the ingest. */
    deviceReadings: new DeviceReadings(db, broker, readingIngest, headEnd, log),
    /** Devices' link and supply changes to browsers: stopped after the ingest (which may still report some). */
    liveDevices,
    /** Dark meters and DCUs rolled up the grid tree (the GIS page's outage layer). */
    outages,
    /** Blackouts on request in the simulated fleet: main.ts attaches the simulator it runs. */
    simulatedOutages: new SimulatedOutages(db, outages),
    runScheduler,
    resources: new ResourceService(db),
    orgs: new OrgService(db),
    users: new UserService(db, sessions),
    groups: new GroupService(db),
    roles: new RoleService(db),
    /** The system log page's list and export. */
    systemLog: new SystemLogRepository(db),
    archive: createArchive(db, secrets),
    collection,
    /** What the run pages ask of collection runs. */
    runs: new RunService(db, runScheduler, collection.tasks),
    gis: new GisService(db, config),
    /** Finding records on the map: search, show on map, meters without a position. */
    gisFinder: new GisFinder(db),
    imports,
    /** The OBIS and event definition pages' calls. */
    parameters: createParameterCatalogues(db, settings),
    /** The meter upgrade page: firmware, images and campaigns. */
    firmware,
    /** Billing rules and virtual meters' members. */
    payment,
    /** What the head-end reads of the OBIS catalogue and the event definitions. */
    obis,
    events: new EventCatalogue(db),
    /** A meter's readings for its data tab. */
    readings: new ReadingsService(db),
    /** The data collection report, from the rollups. */
    collectionReport,
    /** The dashboard's cards, from the rollups. */
    dashboard: new DashboardService(db, collectionReport),
    deviceCredentials: new DeviceCredentials(db, secrets),
  };
}
