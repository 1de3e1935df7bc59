import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { API_BASE, type Envelope, SESSION_COOKIE, type UserStatus } from '@meterdesk/contracts';
import { inArray } from 'drizzle-orm';
import type { FastifyBaseLogger, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { type App, buildApp } from '../app';
import { hashPassword } from '../auth/password';
import { type Config, loadConfig } from '../config';
import { createPglite, type Database, type Db, openDatabase } from '../db/driver';
import { newId } from '../db/ids';
import { sysResource, sysRole, sysRoleResource, sysUser, sysUserRole } from '../db/schema';
import { ROOT_ORG_ID } from '../db/seeded-ids';
import { type Broker, connectExternalBroker, startEmbeddedBroker } from '../mqtt/broker';
import { TEST_ADMIN_PASSWORD } from './constants';
import { uniqueName } from './unique';

export interface CallResult<T = unknown> {
  status: number;
  body: Envelope<T>;
  cookie: string | undefined;
  response: LightMyRequestResponse;
}

export interface TestApp {
  readonly app: App;
  /** Stops the app as main.ts does on SIGTERM and builds it again on the same database and broker. */
  restart(): Promise<void>;
  db: Db;
  database: Database;
  broker: Broker;
  config: Config;
  /** The key the app seals stored secrets with, for a test to open what it finds in a table. */
  secretKey: Buffer;
  call<T = unknown>(
    path: string,
    body?: unknown,
    cookie?: string,
    headers?: Record<string, string>,
  ): Promise<CallResult<T>>;
  login(username: string, password: string): Promise<string>;
  loginAdmin(): Promise<string>;
  createRole(name: string, uris: readonly string[]): Promise<string>;
  createUser(user: {
    username: string;
    password: string;
    roleIds?: string[];
    /** The seeded root organisation unless given. */
    orgId?: string;
    status?: UserStatus;
    expiryDate?: Date | null;
  }): Promise<string>;
  close(): Promise<void>;
}

async function openTestDatabase(): Promise<{ database: Database; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  const template = inject('postgresTemplate');
  if (adminUrl && template) {
    const name = `meterdesk_t_${newId().slice(0, 12)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return {
      database: await openDatabase({ databaseUrl: url.toString() }),
      drop: async () => {
        const c = new pg.Client({ connectionString: adminUrl });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const dumpFile = inject('pgliteTemplate');
  if (!dumpFile) throw new Error('no PGlite template: global-setup.ts prepares one only without TEST_DATABASE_URL');
  const dump = readFileSync(dumpFile);
  const pglite = await createPglite({ loadDataDir: new Blob([dump]) });
  return { database: await openDatabase({ pglite }), drop: async () => {} };
}

export const sessionCookieOf = (response: LightMyRequestResponse): string | undefined => {
  const cookie = response.cookies.find((c) => c.name === SESSION_COOKIE);
  return cookie?.value ? `${SESSION_COOKIE}=${cookie.value}` : undefined;
};

export interface TestAppOptions {
  /** Start the job system (pg-boss) with quick polling; off by default, since most files need no jobs. */
  jobs?: boolean;
  /** Capture the app's log (tests of what reaches it). */
  logger?: FastifyBaseLogger;
  /** The embedded broker (and its browser route `/mqtt`) even when TEST_MQTT_URL names an external one. */
  embeddedBroker?: boolean;
  /** Start the head-end (after the job system, which it needs: `jobs` is implied), with short pauses. */
  headEnd?: boolean;
  /** The embedded broker listens for devices on a random TCP port (`broker.tcpPort`); implies `embeddedBroker`. */
  deviceListener?: boolean;
}

/**
 * A full app on its own copy of the seeded database and its own broker, driven through HTTP.
 * The broker is the external one of TEST_MQTT_URL when set, unless `embeddedBroker` asks for the
 * embedded one.
 */
export async function createTestApp(overrides: Partial<Config> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const config: Config = {
    ...loadConfig({}),
    captchaEnabled: false,
    loginRateLimitPerMinute: 10_000,
    publicRateLimitPerMinute: 10_000,
    logLevel: 'silent',
    mqttTcpPort: null,
    webDist: '/nonexistent',
    ...overrides,
  };
  const { database, drop } = await openTestDatabase();
  const mqttUrl = options.embeddedBroker || options.deviceListener ? undefined : process.env.TEST_MQTT_URL;
  const broker = mqttUrl
    ? await connectExternalBroker(mqttUrl, { clientId: uniqueName('server'), endSessionsOnClose: true })
    : await startEmbeddedBroker({ tcpPort: options.deviceListener ? 0 : null, log: { warn: () => {} } as never });
  const secretKey = randomBytes(32);
  const start = async () => {
    const built = await buildApp({
      config,
      database,
      broker,
      secretKey,
      jobPollingIntervalSeconds: 0.5,
      headEndTiming: { tickMs: 200, busyPauseMs: 300, timeoutBackoffMs: 300 },
      ...(options.logger ? { logger: options.logger } : {}),
    });
    await built.http.ready();
    if (options.jobs || options.headEnd) await built.jobs.start();
    if (options.headEnd) await built.headEnd.start();
    if (options.headEnd) await built.deviceReadings.start();
    return built;
  };
  const stop = async (running: App) => {
    await running.http.close();
    await running.headEnd.stop();
    await running.deviceReadings.stop();
    await running.readingIngest.stop();
    await running.liveDevices.stop();
    await running.jobs.stop();
  };
  let app = await start();
  const db = database.db;

  const call = async <T>(path: string, body: unknown = {}, cookie?: string, headers: Record<string, string> = {}) => {
    const response = await app.http.inject({
      method: 'POST',
      url: API_BASE + path,
      payload: body as object,
      headers: { ...headers, ...(cookie ? { cookie } : {}) },
    });
    return {
      status: response.statusCode,
      body: response.json() as Envelope<T>,
      cookie: sessionCookieOf(response),
      response,
    };
  };

  const login = async (username: string, password: string) => {
    const result = await call('/sysuser/login', { username, password, code: 'x', codeFill: 'x' });
    if (result.status !== 200 || !result.cookie)
      throw new Error(`login ${username} failed: ${JSON.stringify(result.body)}`);
    return result.cookie;
  };

  return {
    get app() {
      return app;
    },
    restart: async () => {
      await stop(app);
      app = await start();
    },
    db,
    database,
    broker,
    config,
    secretKey,
    call,
    login,
    loginAdmin: () => login('admin', TEST_ADMIN_PASSWORD),
    createRole: async (name, uris) => {
      const id = newId();
      await db.insert(sysRole).values({ id, roleName: name });
      if (uris.length) {
        const resources = await db
          .select({ id: sysResource.id })
          .from(sysResource)
          .where(inArray(sysResource.resourceUri, [...uris]));
        if (resources.length !== uris.length) throw new Error(`unknown resource among ${uris.join(', ')}`);
        await db.insert(sysRoleResource).values(resources.map((r) => ({ roleId: id, resourceId: r.id })));
      }
      return id;
    },
    createUser: async (user) => {
      const id = newId();
      await db.insert(sysUser).values({
        id,
        username: user.username,
        passwordHash: await hashPassword(user.password),
        orgId: user.orgId ?? ROOT_ORG_ID,
        status: user.status ?? 'enabled',
        expiryDate: user.expiryDate ?? null,
      });
      if (user.roleIds?.length)
        await db.insert(sysUserRole).values(user.roleIds.map((roleId) => ({ userId: id, roleId })));
      return id;
    },
    close: async () => {
      await stop(app);
      await broker.close();
      await database.close();
      await drop();
    },
  };
}
