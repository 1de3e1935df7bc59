import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import fastifySwagger from '@fastify/swagger';
import fastifyWebsocket from '@fastify/websocket';
import { API_BASE, APP_VERSION, PUBLIC } from '@meterdesk/contracts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { registerAuditLog } from './audit/audit.hook';
import { captchaPurgeJob, loginFailurePurgeJob, sessionPurgeJob } from './auth/auth.jobs';
import { registerAuthRoutes } from './auth/auth.routes';
import { AuthService } from './auth/auth.service';
import { CaptchaStore } from './auth/captcha';
import { LoginFailures } from './auth/login-failures';
import { SessionStore } from './auth/session';
import type { Config } from './config';
import { SecretBox } from './crypto/secret-box';
import type { Database } from './db/driver';
import { JSON_BODY_LIMIT, limitPublicRoutes, registerJsonBody } from './http/body';
import { registerErrorHandler } from './http/error-handler';
import { registerOriginCheck } from './http/origin';
import { registerSpa } from './http/static.routes';
import { JobSystem } from './jobs/job-system';
import { createLogger } from './logger';
import { Mailer } from './mail/mailer';
import { registerGroupRoutes } from './modules/system/group.routes';
import { LogRetentionSetting, logRetentionJob } from './modules/system/log-retention';
import { registerNoticeRoutes } from './modules/system/notice.routes';
import { NoticeService } from './modules/system/notice.service';
import { registerOrgRoutes } from './modules/system/org.routes';
import { registerResourceRoutes } from './modules/system/resource.routes';
import { registerRoleRoutes } from './modules/system/role.routes';
import { registerSettingsRoutes } from './modules/system/settings.routes';
import { registerSystemLogRoutes } from './modules/system/syslog.routes';
import { registerUserRoutes } from './modules/system/user.routes';
import type { Broker } from './mqtt/broker';
import { registerBrowserMqtt } from './mqtt/browser.routes';
import { type RouteRecord, registerAccessControl } from './rbac/access';

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
}

export interface App {
  http: FastifyInstance;
  sessions: SessionStore;
  /** Built with every job declared; main.ts (or a test) starts and stops it. */
  jobs: JobSystem;
  /** Every registered route with its access rule (the route sweep test walks it). */
  routes: RouteRecord[];
}

/** Assembles the HTTP server from its parts; main.ts (or a test) owns the database and the broker. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database, broker, secretKey, logger } = deps;
  const http = Fastify({
    loggerInstance: logger ?? createLogger(config.logLevel),
    trustProxy: config.trustProxy,
    bodyLimit: JSON_BODY_LIMIT,
    // A path that does not decode (`/%`, `/%E0%A4%A`) is the caller's mistake, answered like any bad input.
    frameworkErrors: (error, _req, reply) => {
      const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
      (reply as FastifyReply).status(status).send({ code: status, msg: 'invalidParams', data: null });
    },
  });
  http.setValidatorCompiler(validatorCompiler);
  http.setSerializerCompiler(serializerCompiler);
  registerJsonBody(http);
  limitPublicRoutes(http, config.publicRateLimitPerMinute);
  await http.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_req, ctx) => ({ statusCode: 429, message: `retry in ${ctx.ttl} ms` }),
  });

  await http.register(fastifyHelmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        connectSrc: ["'self'", 'ws:', 'wss:'],
        scriptSrc: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
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

  const { db } = database;
  const sessions = new SessionStore(db, config);
  const captchas = new CaptchaStore(db);
  const auth = new AuthService(db, sessions, captchas, config);
  const logRetention = new LogRetentionSetting(db, config.logRetentionDays);
  const jobs = new JobSystem(database, {
    log: http.log,
    publish: (topic, payload) => broker.publish(topic, payload),
    ...(deps.jobPollingIntervalSeconds ? { pollingIntervalSeconds: deps.jobPollingIntervalSeconds } : {}),
  });
  jobs.register(
    sessionPurgeJob(sessions),
    captchaPurgeJob(captchas),
    loginFailurePurgeJob(db, new LoginFailures(config)),
    logRetentionJob(db, logRetention),
  );

  registerErrorHandler(http);
  registerOriginCheck(http);
  const routes = registerAccessControl(http, { db, sessions });
  registerAuditLog(http, db);

  http.get(`${API_BASE}/openapi.json`, { config: { access: PUBLIC }, schema: { hide: true } }, async () =>
    http.swagger(),
  );
  await registerAuthRoutes(http, { db, auth, sessions, captchas, config });
  const mailer = new Mailer(db, new SecretBox(secretKey));
  const notices = new NoticeService(db, broker, mailer, http.log);
  registerResourceRoutes(http, { db });
  registerOrgRoutes(http, { db });
  registerUserRoutes(http, { db, sessions });
  registerGroupRoutes(http, { db });
  registerRoleRoutes(http, { db });
  registerNoticeRoutes(http, { notices });
  registerSettingsRoutes(http, { db, mailer, logRetention });
  registerSystemLogRoutes(http, { db });
  registerBrowserMqtt(http, { broker, config, db, sessions, jobs });
  await registerSpa(http, config.webDist);

  return { http, sessions, jobs, routes };
}
