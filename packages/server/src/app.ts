import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import fastifySwagger from '@fastify/swagger';
import fastifyWebsocket from '@fastify/websocket';
import { API_BASE, APP_VERSION, PUBLIC } from '@meterdesk/contracts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { registerAuditLog } from './audit/audit.hook';
import { type RouteRecord, registerAccessControl } from './auth/access';
import { registerAuthRoutes } from './auth/auth.routes';
import type { SessionStore } from './auth/session';
import type { Config } from './config';
import { ambientDb } from './db/ambient';
import { type Database, inForeground } from './db/driver';
import type { HeadEnd, HeadEndOptions } from './headend/head-end';
import { JSON_BODY_LIMIT, limitPublicRoutes, registerJsonBody } from './http/body';
import { registerErrorHandler } from './http/error-handler';
import { registerUploadBody } from './http/operation';
import { registerOriginCheck } from './http/origin';
import { warnOfUntrustedProxy } from './http/proxy';
import { registerSpa } from './http/static.routes';
import type { JobSystem } from './jobs/job-system';
import { createLogger, OneLinePerRequest } from './logger';
import { registerAnalyticsRoutes } from './modules/analytics/analytics';
import { registerArchive } from './modules/archive/archive';
import { registerGisRoutes } from './modules/archive/gis';
import { registerGisFindRoutes } from './modules/archive/gis-find';
import { registerImportRoutes } from './modules/archive/import/import-routes';
import { registerCollectionRoutes } from './modules/collection/collection';
import { registerCollectionReportRoutes } from './modules/collection/collection-report.routes';
import { registerReadingsRoutes } from './modules/collection/readings.routes';
import { registerRunRoutes } from './modules/collection/run.routes';
import type { RunScheduler } from './modules/collection/run-scheduler';
import { registerDashboardRoutes } from './modules/dashboard/dashboard.routes';
import { registerFirmware } from './modules/firmware/firmware';
import { registerPlanRoutes } from './modules/operations/plan.routes';
import { registerTariffPushRoutes } from './modules/operations/tariff-push.routes';
import type { TariffPushService } from './modules/operations/tariff-push.service';
import { registerOutageRoutes } from './modules/outage/outage.routes';
import type { SimulatedOutages } from './modules/outage/simulated-outage';
import { registerParameterCatalogues } from './modules/parameter/parameter';
import { registerPayment } from './modules/payment/payment';
import type { PrepaidService } from './modules/payment/prepaid.service';
import { registerGroupRoutes } from './modules/system/group';
import { registerNoticeRoutes } from './modules/system/notice.routes';
import { registerOrgRoutes } from './modules/system/org.routes';
import { registerResourceRoutes } from './modules/system/resource.routes';
import { registerRoleRoutes } from './modules/system/role.routes';
import { registerSettingsRoutes } from './modules/system/settings.routes';
import { registerSystemLogRoutes } from './modules/system/syslog.routes';
import { registerUserRoutes } from './modules/system/user';
import type { Broker } from './mqtt/broker';
import { registerBrowserMqtt } from './mqtt/browser.routes';
import type { DeviceCredentials } from './mqtt/device-credentials';
import { devicePolicy } from './mqtt/device-policy';
import type { DeviceReadings } from './readings/device-data';
import type { ReadingIngest } from './readings/ingest';
import type { LiveDeviceFeed } from './readings/live-devices';
import { ensurePartitionsAround } from './readings/partitions';
import { createServices } from './services';

export interface AppDeps {
  config: Config;
  database: Database;
  broker: Broker;
  /** Key that seals stored secrets (see crypto/secret-key.ts). */
  secretKey: Buffer;
  /** The process logger; without one the app makes its own at config.logLevel. */
  logger?: FastifyBaseLogger;
  /** How often idle job workers poll (tests shorten it). */
  jobPollingIntervalSeconds?: number;
  /** The head-end's pauses (tests shorten them). */
  headEndTiming?: Partial<Omit<HeadEndOptions, 'routeConcurrency'>>;
}

export interface App {
  http: FastifyInstance;
  sessions: SessionStore;
  /** Built with every job declared; main.ts (or a test) starts and stops it. */
  jobs: JobSystem;
  /** The device side: main.ts (or a test) starts it after the job system and stops it first. */
  headEnd: HeadEnd;
  /** Tariff pushes: main.ts closes, after the head-end starts, the answers a stop left unrecorded. */
  tariffPushes: TariffPushService;
  /** Prepaid recharges: main.ts settles, after the head-end starts, the answers a stop left unrecorded. */
  prepaid: PrepaidService;
  /** Readings pushed on the broker: started with the head-end, stopped after it and before `readingIngest`. */
  deviceReadings: DeviceReadings;
  /** The readings pipeline: stopped (its rows flushed) after everything that pushes into it. */
  readingIngest: ReadingIngest;
  /** Devices' live changes to browsers: stopped after the readings pipeline, before the broker. */
  liveDevices: LiveDeviceFeed;
  /** main.ts attaches the simulator it runs (a test, one of its own), so blackouts can be asked for. */
  simulatedOutages: SimulatedOutages;
  /** The collection runs' scheduler: a test calls its tick rather than wait for the minute's schedule. */
  runScheduler: RunScheduler;
  /** Every registered route with its access rule (the route sweep test walks it). */
  routes: RouteRecord[];
  /** Device broker passwords: main.ts writes the simulator's fleet with them. */
  deviceCredentials: DeviceCredentials;
}

/** The origin of an http tile server, which the `https:` source does not cover. */
function tileOrigin(tileUrl: string | null): string[] {
  if (!tileUrl?.startsWith('http:')) return [];
  try {
    return [new URL(tileUrl.replace(/\{[a-z]\}/g, '0')).origin];
  } catch {
    return [];
  }
}

/** Assembles the HTTP server from its parts; main.ts (or a test) owns the database and the broker. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, broker, secretKey, logger } = deps;
  const http = Fastify({
    loggerInstance: logger ?? createLogger(config.logLevel),
    logController: new OneLinePerRequest(),
    trustProxy: config.trustProxy,
    bodyLimit: JSON_BODY_LIMIT,
    // A path that does not decode (`/%`, `/%E0%A4%A`) is the caller's mistake, answered like any bad input.
    frameworkErrors: (error, _req, reply) => {
      const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
      (reply as FastifyReply).status(status).send({ code: status, msg: 'invalidParams', data: null });
    },
  });
  // Requests go ahead of background work on PGlite; the body is read outside the context, so again after it.
  http.addHook('onRequest', (_req, _reply, done) => inForeground(done));
  http.addHook('preValidation', (_req, _reply, done) => inForeground(done));
  http.setValidatorCompiler(validatorCompiler);
  http.setSerializerCompiler(serializerCompiler);
  registerJsonBody(http);
  registerUploadBody(http);
  limitPublicRoutes(http, config.publicRateLimitPerMinute);
  await http.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_req, ctx) => ({ statusCode: 429, message: `retry in ${ctx.ttl} ms` }),
  });

  await http.register(fastifyHelmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        // Map tiles come from MAP_TILE_URL, which a control room may serve over plain http.
        imgSrc: ["'self'", 'data:', 'blob:', 'https:', ...tileOrigin(config.mapTileUrl)],
        styleSrc: ["'self'", "'unsafe-inline'"],
        connectSrc: ["'self'", 'ws:', 'wss:'],
        scriptSrc: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
    // Over plain HTTP the header is meaningless at best; SECURE_COOKIES=on is what says HTTPS is in front.
    strictTransportSecurity: config.secureCookies,
  });
  await http.register(fastifyCookie);
  await http.register(fastifyWebsocket);
  await http.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'Meterdesk API',
        version: APP_VERSION,
        description: 'Every call is POST with a {code, msg, data} answer.',
      },
      components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'meterdesk_session' } } },
    },
    transform: jsonSchemaTransform,
  });

  const root = deps.database.db;
  // The services' handle joins the transaction an audited request runs in (`db/ambient.ts`).
  const database = { ...deps.database, db: ambientDb(root) };
  const services = createServices({
    config,
    database,
    broker,
    secretKey,
    log: http.log,
    jobPollingIntervalSeconds: deps.jobPollingIntervalSeconds,
    headEndTiming: deps.headEndTiming,
  });
  const { db, sessions, jobs } = services;
  // Readings must find their month's partition from the first message on; the daily job keeps it so.
  await ensurePartitionsAround(db, new Date());

  registerErrorHandler(http);
  registerOriginCheck(http);
  warnOfUntrustedProxy(http, config.trustProxy);
  const routes = registerAccessControl(http, { db, sessions });
  registerAuditLog(http, root);

  http.get(`${API_BASE}/openapi.json`, { config: { access: PUBLIC }, schema: { hide: true } }, async () =>
    http.swagger(),
  );
  await registerAuthRoutes(http, { ...services, config });
  registerResourceRoutes(http, services.resources);
  registerOrgRoutes(http, services.orgs);
  registerUserRoutes(http, services.users);
  registerGroupRoutes(http, services.groups);
  registerRoleRoutes(http, services.roles);
  registerNoticeRoutes(http, services);
  registerSettingsRoutes(http, services);
  registerSystemLogRoutes(http, services);
  registerArchive(http, services.archive);
  registerGisRoutes(http, services.gis);
  registerGisFindRoutes(http, services.gisFinder);
  registerImportRoutes(http, { database, jobs, imports: services.imports });
  registerPlanRoutes(http, services.plans, services.collection.tasks);
  registerTariffPushRoutes(http, services.tariffPushes);
  registerCollectionRoutes(http, services.collection);
  registerReadingsRoutes(http, services);
  registerCollectionReportRoutes(http, services);
  registerDashboardRoutes(http, services);
  registerAnalyticsRoutes(http, services);
  registerRunRoutes(http, services.runs);
  registerParameterCatalogues(http, services.parameters);
  registerFirmware(http, services.firmware);
  registerPayment(http, services.payment);
  registerOutageRoutes(http, services);
  registerBrowserMqtt(http, { broker, config, db, sessions, jobs });
  broker.admitDevices?.(devicePolicy(db, services.deviceCredentials));
  await registerSpa(http, config.webDist);

  return {
    http,
    sessions,
    jobs,
    headEnd: services.headEnd,
    tariffPushes: services.tariffPushes,
    prepaid: services.payment.prepaid,
    deviceReadings: services.deviceReadings,
    readingIngest: services.readingIngest,
    liveDevices: services.liveDevices,
    simulatedOutages: services.simulatedOutages,
    runScheduler: services.runScheduler,
    routes,
    deviceCredentials: services.deviceCredentials,
  };
}
