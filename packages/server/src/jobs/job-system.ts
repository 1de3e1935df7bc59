import { progressTopic } from '@meterdesk/contracts';
import PgBoss from 'pg-boss';
import { openTransaction, rawClient } from '../db/ambient';
import type { Database } from '../db/driver';
import { openPgliteSocket, type PgliteSocket } from './pglite-socket';

/** pg-boss keeps its tables in a schema of its own, outside the drizzle migrations. */
export const JOB_SCHEMA = 'pgboss';

/** The browser topic on which the user who started a job follows its progress. */

export interface JobProgress {
  done: number;
  total: number;
  [detail: string]: unknown;
}

export interface JobContext {
  jobId: string;
  /** The user who sent the job; null for a scheduled run. */
  startedBy: string | null;
  /** Tells the user who started the job how far it is (nothing is sent for a scheduled run). */
  progress(progress: JobProgress): Promise<void>;
  /** Aborted when the job system stops: a handler that waits for something ends its wait (it runs again after the next start). */
  signal: AbortSignal;
}

export interface JobDefinition<T extends object = Record<string, unknown>> {
  /** Letters, digits, `-` and `_`: it names the pg-boss queue. */
  name: string;
  /** A cron expression evaluated in UTC; each tick queues one run, on one instance only. */
  schedule?: string;
  handler(data: T, context: JobContext): Promise<unknown>;
  /**
   * standard: any number queued and running; singleton: at most one running at a time;
   * stately: at most one queued and one running (a schedule that fires while a run waits adds nothing).
   */
  policy?: 'standard' | 'singleton' | 'stately';
  /** Workers of this queue in each server instance. */
  concurrency?: number;
  /** Runs after the first failure; a run that was active when the server stopped counts as failed. */
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** A run still active after this long fails (and is retried). */
  expireInSeconds?: number;
  /**
   * A run left active by a server that died (killed outright, so it never marked it failed) is failed
   * when the job system starts, and its retry runs now rather than once it expires. For a job that is
   * safe to run twice at once: with several server instances, one starting fails another's live run.
   */
  reclaimOnStart?: boolean;
}

const JOB_NAME = /^[A-Za-z0-9_-]{1,100}$/;

/** One declaration per job, in the module that owns the work; the composition root registers it. */
export function defineJob<T extends object = Record<string, unknown>>(definition: JobDefinition<T>): JobDefinition<T> {
  if (!JOB_NAME.test(definition.name)) throw new Error(`job name "${definition.name}": letters, digits, - and _ only`);
  return definition;
}

export interface JobLog {
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

export interface JobSystemOptions {
  log: JobLog;
  /** The broker's publish: progress reaches the browser through it. */
  publish(topic: string, payload: unknown): Promise<void>;
  /** How often an idle worker asks for work (pg-boss polls; 2 s unless told, at least 0.5 s). */
  pollingIntervalSeconds?: number;
  /** How long stop() lets running jobs finish before it marks them failed (so they run again). */
  stopTimeoutMs?: number;
}

export interface JobRecord {
  id: string;
  name: string;
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  data: Record<string, unknown>;
  output: unknown;
}

/**
 * A job sent while a request's transaction is open is queued in it: it runs only if the change that
 * asked for it commits. Read there too: on PGlite, pg-boss's own session would wait for the
 * transaction to end, which waits for the read.
 */
function enlisted(): { db?: PgBoss.Db } {
  const tx = openTransaction();
  if (!tx) return {};
  const client = rawClient(tx);
  return { db: { executeSql: (text, values) => client.query(text, values) } };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
type AnyDefinition = JobDefinition<Record<string, unknown>>;

async function connect(
  database: Database,
  extra: PgBoss.ConstructorOptions = {},
): Promise<{ boss: PgBoss; socket: PgliteSocket | null }> {
  const common = { ...extra, schema: JOB_SCHEMA, application_name: 'meterdesk-jobs' };
  if (database.connection.kind === 'postgres') {
    return { boss: new PgBoss({ ...common, connectionString: database.connection.url, max: 4 }), socket: null };
  }
  const socket = await openPgliteSocket(database.connection.client, database.connection.dataDir);
  // pg's Pool option idleTimeoutMillis (not in pg-boss's types) is passed through: 0 keeps the one connection.
  const options = { ...common, ...socket.connection, max: 1, idleTimeoutMillis: 0 } as PgBoss.ConstructorOptions;
  return { boss: new PgBoss(options), socket };
}

/**
 * Durable jobs on pg-boss, in the app's own database (PostgreSQL, or PGlite through a private
 * socket). Built once by the composition root; modules declare jobs with `defineJob`.
 */
export class JobSystem {
  private readonly definitions = new Map<string, AnyDefinition>();
  private boss: PgBoss | null = null;
  private socket: PgliteSocket | null = null;
  private stopping = new AbortController();

  constructor(
    private readonly database: Database,
    private readonly options: JobSystemOptions,
  ) {}

  register<T extends object>(...definitions: JobDefinition<T>[]): void {
    if (this.boss) throw new Error('jobs are registered before the job system starts');
    for (const definition of definitions) {
      if (this.definitions.has(definition.name)) throw new Error(`job "${definition.name}" is declared twice`);
      this.definitions.set(definition.name, definition as unknown as AnyDefinition);
    }
  }

  get started(): boolean {
    return this.boss !== null;
  }

  /** On PGlite, how many job-system statements wait for the one session (a drizzle transaction holds it). */
  get waitingForSession(): number {
    return this.socket?.waiting ?? 0;
  }

  /** Creates pg-boss's schema (or brings it up to date), then one queue and its workers per job. */
  async start(): Promise<void> {
    if (this.boss) return;
    const { boss, socket } = await connect(this.database);
    boss.on('error', (err) => this.options.log.error({ err }, 'job system'));
    try {
      await boss.start();
      for (const definition of this.definitions.values()) await this.install(boss, definition);
      // A schedule left by a job that is no longer declared would fill a queue nobody works.
      for (const schedule of await boss.getSchedules())
        if (!this.definitions.get(schedule.name)?.schedule) await boss.unschedule(schedule.name);
    } catch (err) {
      await boss.stop({ graceful: false }).catch(() => {});
      await socket?.close();
      throw err;
    }
    this.boss = boss;
    this.socket = socket;
  }

  private async install(boss: PgBoss, definition: AnyDefinition): Promise<void> {
    const queue: PgBoss.Queue = {
      name: definition.name,
      policy: definition.policy ?? 'standard',
      retryLimit: definition.retryLimit ?? 2,
      retryDelay: definition.retryDelaySeconds ?? 30,
      retryBackoff: (definition.retryDelaySeconds ?? 30) > 0,
      expireInSeconds: definition.expireInSeconds ?? 15 * 60,
    };
    await boss.createQueue(definition.name, queue);
    await boss.updateQueue(definition.name, queue);
    if (definition.reclaimOnStart) await this.reclaim(boss, definition.name);
    if (definition.schedule) await boss.schedule(definition.name, definition.schedule, {}, { tz: 'UTC' });
    const workOptions = { batchSize: 1, pollingIntervalSeconds: this.options.pollingIntervalSeconds ?? 2 };
    for (let i = 0; i < (definition.concurrency ?? 1); i++)
      await boss.work<Record<string, unknown>>(definition.name, workOptions, async ([job]) => {
        if (job) return this.run(boss, definition, job);
      });
  }

  /** Fails the queue's runs still marked active: no worker of this (just started) system runs them. */
  private async reclaim(boss: PgBoss, name: string): Promise<void> {
    const { rows } = await boss
      .getDb()
      .executeSql(`SELECT id FROM ${JOB_SCHEMA}.job WHERE name = $1 AND state = 'active'`, [name]);
    const ids = (rows as { id: string }[]).map((row) => row.id);
    if (!ids.length) return;
    for (const id of ids) await boss.fail(name, id, { message: 'the server stopped while it ran' });
    this.options.log.warn({ job: name, jobIds: ids }, 'job runs left active by a stopped server run again');
  }

  private async run(
    boss: PgBoss,
    definition: AnyDefinition,
    job: PgBoss.Job<Record<string, unknown>>,
  ): Promise<unknown> {
    const { startedBy, ...data } = job.data ?? {};
    const owner = typeof startedBy === 'string' ? startedBy : null;
    const context: JobContext = {
      jobId: job.id,
      startedBy: owner,
      progress: (progress) => (owner ? this.reportProgress(job.id, progress) : Promise.resolve()),
      signal: this.stopping.signal,
    };
    try {
      const output = (await definition.handler(data, context)) ?? null;
      this.options.log.debug({ job: definition.name, jobId: job.id, output }, 'job done');
      return output;
    } catch (err) {
      this.options.log.warn({ err, job: definition.name, jobId: job.id }, 'job failed');
      // pg-boss records a handler's failure without awaiting it, so during stop() the write can lose the
      // race with closing the pool and the job stays active until it expires (hours for a long run).
      // Written here, before the handler settles, the run is retried at the next start.
      if (context.signal.aborted)
        await boss
          .fail(definition.name, job.id, { message: 'the job system stopped' })
          .catch((failErr: unknown) => this.options.log.warn({ err: failErr, jobId: job.id }, 'job not marked failed'));
      throw err;
    }
  }

  private require(): PgBoss {
    if (!this.boss) throw new Error('the job system is not started');
    return this.boss;
  }

  /**
   * Queues a run of a declared job; `startedBy` is the user who will see its progress. With `id` (a
   * UUID) the job is sent once: sending it again while it is queued or running answers the same id.
   */
  async send(
    name: string,
    data: Record<string, unknown> = {},
    options: { startedBy?: string; id?: string } = {},
  ): Promise<string> {
    if (!this.definitions.has(name)) throw new Error(`no job "${name}" is declared`);
    const payload = options.startedBy ? { ...data, startedBy: options.startedBy } : data;
    const id = await this.require().send(name, payload, { ...(options.id ? { id: options.id } : {}), ...enlisted() });
    if (!id && options.id) return options.id;
    // null means the queue's policy refused a second run (stately): say so rather than return a fake id.
    if (!id) throw new Error(`job "${name}" is already queued`);
    return id;
  }

  /**
   * Queues a run of a stately job now, unless one already waits (it will do the same work), or the job
   * system is not running (a server started without jobs: nothing would run it).
   */
  async nudge(name: string): Promise<void> {
    if (!this.definitions.has(name)) throw new Error(`no job "${name}" is declared`);
    if (!this.boss) return;
    await this.boss.send(name, {}, enlisted());
  }

  /** A job run, live or archived; null when the id names none. */
  async getJob(jobId: string): Promise<JobRecord | null> {
    if (!UUID.test(jobId)) return null;
    const columns = 'id, name, state, data, output';
    const boss = this.require();
    const { rows } = await (enlisted().db ?? boss.getDb()).executeSql(
      `SELECT ${columns} FROM ${JOB_SCHEMA}.job WHERE id = $1
         UNION ALL SELECT ${columns} FROM ${JOB_SCHEMA}.archive WHERE id = $1 LIMIT 1`,
      [jobId],
    );
    return (rows[0] as JobRecord | undefined) ?? null;
  }

  /** The username that started the job, which alone may follow `progress/{jobId}`. */
  async jobOwner(jobId: string): Promise<string | null> {
    const startedBy = (await this.getJob(jobId))?.data?.startedBy;
    return typeof startedBy === 'string' ? startedBy : null;
  }

  async reportProgress(jobId: string, progress: JobProgress): Promise<void> {
    await this.options.publish(progressTopic(jobId), progress);
  }

  /**
   * Stops fetching, lets running jobs finish for up to `stopTimeoutMs`, then marks the rest failed so
   * their retry runs after the next start; closes the pool (and the PGlite socket) last.
   */
  async stop(): Promise<void> {
    const boss = this.boss;
    if (!boss) return;
    this.boss = null;
    this.stopping.abort();
    this.stopping = new AbortController();
    await boss.stop({ graceful: true, wait: true, timeout: this.options.stopTimeoutMs ?? 20_000 });
    await this.socket?.close();
    this.socket = null;
  }

  /** Creates pg-boss's schema once (the test template does, so each test database starts with it). */
  static async install(database: Database): Promise<void> {
    // Only the schema: no maintenance or cron timers that would outlive the call.
    const { boss, socket } = await connect(database, { supervise: false, schedule: false });
    try {
      await boss.start();
      await boss.stop({ graceful: false });
    } finally {
      await socket?.close();
    }
  }
}
