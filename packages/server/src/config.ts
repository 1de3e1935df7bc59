import path from 'node:path';
import { z } from 'zod';
import { WEB_DIST } from './paths';

const bool = (fallback: boolean) =>
  z
    .enum(['on', 'off', 'true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? fallback : ['on', 'true', '1'].includes(v)));
const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

/** Every setting comes from the environment; README.md documents each one. */
const EnvSchema = z.object({
  PORT: int(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().optional(),
  MQTT_URL: z.string().optional(),
  MQTT_WS_URL: z.string().optional(),
  MQTT_CLIENT_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/)
    .default('meterdesk-server'),
  MQTT_TCP_PORT: z.union([z.literal('off'), z.coerce.number().int().min(0).max(65535)]).default(1884),
  ADMIN_PASSWORD: z.string().min(6).max(18).optional(),
  OPERATOR_PASSWORD: z.string().min(6).max(18).optional(),
  CAPTCHA: z.enum(['on', 'off']).default('on'),
  DEMO: z.enum(['on', 'off']).optional(),
  SIMULATOR: z.enum(['on', 'off']).optional(),
  SIMULATOR_ARGS: z.string().max(1000).default(''),
  DEMO_HISTORY_DAYS: int(30).pipe(z.number().max(30)),
  SECRET_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}=$/, 'SECRET_KEY must be 32 bytes in base64')
    .optional(),
  SESSION_IDLE_MINUTES: int(30, 1),
  SESSION_ABSOLUTE_HOURS: int(12, 1),
  LOGIN_LOCK_THRESHOLD: int(5, 1),
  LOGIN_LOCK_MINUTES: int(15, 1),
  LOGIN_LOCK_ADDRESSES: int(10, 1),
  LOGIN_RATE_LIMIT_PER_MINUTE: int(10, 1),
  LOG_RETENTION_DAYS: int(180, 1).pipe(z.number().max(3650)),
  READINGS_RETENTION_MONTHS: int(36, 1).pipe(z.number().max(240)),
  PUBLIC_RATE_LIMIT_PER_MINUTE: int(300, 1),
  WEB_DIST: z.string().optional(),
  SECURE_COOKIES: bool(false),
  TRUST_PROXY: bool(false),
  MAP_TILE_URL: z.string().default('https://tile.openstreetmap.org/{z}/{x}/{y}.png'),
  MAP_TILE_ATTRIBUTION: z.string().default('© OpenStreetMap contributors'),
  DISCONNECT_APPROVAL_THRESHOLD: int(10, 1),
  DISCONNECT_WINDOW_MINUTES: int(10, 1).pipe(z.number().max(1440)),
  DISCONNECT_STAGGER_PER_SECOND: z.coerce.number().positive().max(1000).default(2),
  HEADEND_DCU_CONCURRENCY: int(4, 1).pipe(z.number().max(64)),
  RECHARGE_DEADLINE_SECONDS: int(86_400, 10).pipe(z.number().max(30 * 86_400)),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type DemoArchive = 'whenEmpty' | 'firstStart' | 'never';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  mqttUrl: string | undefined;
  mqttWsUrl: string | undefined;
  /**
   * With MQTT_URL: the prefix of the server's durable broker sessions, which keep what devices
   * publish while the server is away. One server per prefix: a second server with the same one
   * would take the sessions over.
   */
  mqttClientId: string;
  /** null: the embedded broker opens no TCP listener (browsers still reach it over /mqtt). */
  mqttTcpPort: number | null;
  adminPassword: string | undefined;
  /** When set on the first start, a demo user `operator` with the read-only role is created. */
  operatorPassword: string | undefined;
  captchaEnabled: boolean;
  /**
   * When the demo archive (`seed/demo-archive.ts`) is seeded. `DEMO=on`: at any start that finds the
   * archive empty; unset on PGlite: only at the first start, so an operator who clears the demo keeps
   * a clear archive; `DEMO=off`, or unset on PostgreSQL (a utility's production): never.
   */
  demoArchive: DemoArchive;
  /**
   * Whether `npm start` runs the device simulator on the archive's fleet. `SIMULATOR=on` forces it,
   * `off` never; unset, it runs when the demo archive may be in use (DEMO not off, PGlite or DEMO=on).
   */
  simulator: boolean;
  /**
   * More flags for that simulator, split on spaces (`SIMULATOR_ARGS="--fail-image-verify ^31000105$"`:
   * a demo meter that fails firmware verification, for a journey); see packages/simulator/src/cli.ts.
   */
  simulatorArgs: string[];
  /** Key of stored secrets; without it the server keeps one in DATA_DIR/secret.key. */
  secretKey: Buffer | undefined;
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
  lockThreshold: number;
  lockMs: number;
  /** Addresses locked out at once that lock the user from everywhere (status `locking`). */
  lockAddresses: number;
  loginRateLimitPerMinute: number;
  /** Days system log entries are kept until an administrator saves another number. */
  logRetentionDays: number;
  /** Months of readings kept unless the `readingsRetentionMonths` system parameter says otherwise. */
  readingsRetentionMonths: number;
  /** How often the sessions of connected browsers are checked for an idle or absolute time-out. */
  browserSessionCheckMs: number;
  /** Every other public route (session probe, captcha, configuration), per route and address. */
  publicRateLimitPerMinute: number;
  webDist: string;
  secureCookies: boolean;
  trustProxy: boolean;
  logLevel: string;
  /** Leaflet tile URL template; null (`MAP_TILE_URL=off`) draws the map's markers on a plain background. */
  mapTileUrl: string | null;
  mapTileAttribution: string;
  /**
   * A disconnect that takes the meters disconnected without approval within the window (everyone's
   * together) past this many waits for a second user's approval.
   */
  disconnectApprovalThreshold: number;
  /** The sliding window of the approval threshold: split batches add up within it. */
  disconnectWindowMinutes: number;
  /** Meters an approved mass disconnect reaches per second. */
  disconnectStaggerPerSecond: number;
  /** Commands in flight at once on one DCU (or direct meter). */
  headendDcuConcurrency: number;
  /** How long a prepaid recharge waits for its meter (offline, time-outs) before it fails and is reversed. */
  rechargeDeadlineSeconds: number;
  /** Days of history the start that adds the demo archive reads from the simulated fleet; 0 reads none. */
  demoHistoryDays: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const demoArchive: DemoArchive =
    e.DEMO === 'on' ? 'whenEmpty' : e.DEMO === 'off' || e.DATABASE_URL ? 'never' : 'firstStart';
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL || undefined,
    mqttUrl: e.MQTT_URL || undefined,
    mqttWsUrl: e.MQTT_WS_URL || undefined,
    mqttClientId: e.MQTT_CLIENT_ID,
    mqttTcpPort: e.MQTT_TCP_PORT === 'off' ? null : e.MQTT_TCP_PORT,
    adminPassword: e.ADMIN_PASSWORD,
    operatorPassword: e.OPERATOR_PASSWORD,
    captchaEnabled: e.CAPTCHA === 'on',
    demoArchive,
    simulator: e.SIMULATOR ? e.SIMULATOR === 'on' : demoArchive !== 'never',
    simulatorArgs: e.SIMULATOR_ARGS.split(/\s+/).filter(Boolean),
    secretKey: e.SECRET_KEY ? Buffer.from(e.SECRET_KEY, 'base64') : undefined,
    sessionIdleMs: e.SESSION_IDLE_MINUTES * 60_000,
    sessionAbsoluteMs: e.SESSION_ABSOLUTE_HOURS * 3_600_000,
    lockThreshold: e.LOGIN_LOCK_THRESHOLD,
    lockMs: e.LOGIN_LOCK_MINUTES * 60_000,
    lockAddresses: e.LOGIN_LOCK_ADDRESSES,
    loginRateLimitPerMinute: e.LOGIN_RATE_LIMIT_PER_MINUTE,
    logRetentionDays: e.LOG_RETENTION_DAYS,
    readingsRetentionMonths: e.READINGS_RETENTION_MONTHS,
    publicRateLimitPerMinute: e.PUBLIC_RATE_LIMIT_PER_MINUTE,
    browserSessionCheckMs: 30_000,
    webDist: path.resolve(e.WEB_DIST ?? WEB_DIST),
    secureCookies: e.SECURE_COOKIES,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    mapTileUrl: e.MAP_TILE_URL === 'off' || e.MAP_TILE_URL === '' ? null : e.MAP_TILE_URL,
    mapTileAttribution: e.MAP_TILE_ATTRIBUTION,
    disconnectApprovalThreshold: e.DISCONNECT_APPROVAL_THRESHOLD,
    disconnectWindowMinutes: e.DISCONNECT_WINDOW_MINUTES,
    disconnectStaggerPerSecond: e.DISCONNECT_STAGGER_PER_SECOND,
    headendDcuConcurrency: e.HEADEND_DCU_CONCURRENCY,
    rechargeDeadlineSeconds: e.RECHARGE_DEADLINE_SECONDS,
    demoHistoryDays: e.DEMO_HISTORY_DAYS,
  };
}
