import { setTimeout as delay } from 'node:timers/promises';
import { eq, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rowsOf } from '../db/rows';
import { sysParameter } from '../db/schema';
import { createTestApp, type TestApp } from '../test/harness';
import { defineJob, type JobDefinition, type JobProgress, JobSystem } from './job-system';

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const settle = { timeout: 20_000, interval: 100 };

describe('job system', () => {
  let t: TestApp;
  let jobs: JobSystem;
  const published: { topic: string; payload: unknown }[] = [];
  let attempts = 0;

  const definitions = (): JobDefinition[] => [
    defineJob({
      name: 'record',
      concurrency: 2,
      // Writes through drizzle while pg-boss fetches and completes through its own connection.
      handler: async (data) => {
        await t.db.insert(sysParameter).values({ key: `job-${String(data.i)}`, value: data });
        return { recorded: data.i };
      },
    }),
    defineJob({
      name: 'counted',
      handler: async (data, context) => {
        const total = Number(data.total);
        for (let done = 1; done <= total; done++) await context.progress({ done, total });
        return { startedBy: context.startedBy };
      },
    }),
    defineJob({
      name: 'flaky',
      retryLimit: 2,
      retryDelaySeconds: 0,
      handler: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('first attempt fails');
        return { attempts };
      },
    }),
    defineJob({ name: 'nightly', schedule: '0 3 * * *', policy: 'stately', handler: async () => null }),
  ];

  const startJobs = async (list: JobDefinition[], stopTimeoutMs?: number) => {
    const system = new JobSystem(t.database, {
      log: quiet,
      publish: async (topic, payload) => {
        published.push({ topic, payload });
        await t.broker.publish(topic, payload);
      },
      pollingIntervalSeconds: 0.5,
      ...(stopTimeoutMs ? { stopTimeoutMs } : {}),
    });
    system.register(...list);
    await system.start();
    return system;
  };

  const completed = async (system: JobSystem, id: string) => {
    await vi.waitFor(async () => expect((await system.getJob(id))?.state).toBe('completed'), settle);
    return system.getJob(id);
  };

  beforeAll(async () => {
    t = await createTestApp();
    jobs = await startJobs(definitions());
  });
  afterAll(async () => {
    await jobs.stop();
    await t.close();
  });

  it('runs a declared job with its data and keeps its output', async () => {
    const id = await jobs.send('record', { i: 'one' });
    expect((await completed(jobs, id))?.output).toEqual({ recorded: 'one' });
    const [row] = await t.db.select().from(sysParameter).where(eq(sysParameter.key, 'job-one'));
    expect(row?.value).toEqual({ i: 'one' });
  });

  it('refuses a job nobody declared and a declaration with an unusable name', async () => {
    await expect(jobs.send('undeclared')).rejects.toThrow('no job "undeclared"');
    expect(() => defineJob({ name: 'two words', handler: async () => null })).toThrow('letters, digits');
  });

  it('names the user who started a job, and no one for a job nobody started or an unknown id', async () => {
    const mine = await jobs.send('counted', { total: 0 }, { startedBy: 'admin' });
    const anonymous = await jobs.send('counted', { total: 0 });
    expect(await jobs.jobOwner(mine)).toBe('admin');
    expect(await jobs.jobOwner(anonymous)).toBeNull();
    expect(await jobs.jobOwner('00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await jobs.jobOwner("x' or 1=1 --")).toBeNull();
    // The handler sees the data without the owner, and the owner through its context.
    expect((await completed(jobs, mine))?.output).toEqual({ startedBy: 'admin' });
  });

  it('publishes progress on progress/{jobId} for a job a user started, through the broker', async () => {
    const id = await jobs.send('counted', { total: 3 }, { startedBy: 'admin' });
    await completed(jobs, id);
    const mine = published.filter((p) => p.topic === `progress/${id}`).map((p) => p.payload as JobProgress);
    expect(mine).toEqual([
      { done: 1, total: 3 },
      { done: 2, total: 3 },
      { done: 3, total: 3 },
    ]);
    const scheduledLike = await jobs.send('counted', { total: 2 });
    await completed(jobs, scheduledLike);
    expect(published.some((p) => p.topic === `progress/${scheduledLike}`)).toBe(false);
  });

  it('retries a failed run', async () => {
    const id = await jobs.send('flaky');
    expect((await completed(jobs, id))?.output).toEqual({ attempts: 2 });
  });

  it('keeps a declared schedule in pg-boss and drops the schedule of a job no longer declared', async () => {
    const schedules = () => rowsOf<{ name: string; cron: string }>(t.db, sql`select name, cron from pgboss.schedule`);
    expect(await schedules()).toContainEqual({ name: 'nightly', cron: '0 3 * * *' });
    const other = await startJobs(definitions().filter((d) => d.name !== 'nightly'));
    await other.stop();
    expect((await schedules()).map((s) => s.name)).not.toContain('nightly');
    const again = await startJobs(definitions());
    await again.stop();
    expect(await schedules()).toContainEqual({ name: 'nightly', cron: '0 3 * * *' });
  });

  it('a drizzle transaction rolled back neither loses nor takes along a job sent while it was open', async () => {
    let sent: Promise<string> | undefined;
    await expect(
      t.db.transaction(async (tx) => {
        await tx.insert(sysParameter).values({ key: 'rolled-back', value: {} });
        sent = jobs.send('record', { i: 'during-rollback' });
        // On PGlite pg-boss's statements must wait for the session; if the send finished now, it ran inside this transaction.
        const outcome = await Promise.race([
          sent.then(() => 'finished inside the transaction'),
          vi
            .waitFor(() => expect(jobs.waitingForSession).toBeGreaterThan(0), settle)
            .then(() => 'waiting for the session'),
        ]);
        if (t.database.kind === 'pglite') expect(outcome).toBe('waiting for the session');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const id = await (sent as Promise<string>);
    expect(await jobs.getJob(id)).not.toBeNull();
    await completed(jobs, id);
    expect(await t.db.select().from(sysParameter).where(eq(sysParameter.key, 'rolled-back'))).toEqual([]);
    expect(await t.db.select().from(sysParameter).where(eq(sysParameter.key, 'job-during-rollback'))).toHaveLength(1);
  });

  it('works alongside concurrent drizzle transactions, committed and rolled back', async () => {
    const n = 24;
    const outcomes = await Promise.allSettled(
      Array.from({ length: n }, (_, i) =>
        i % 2 === 0
          ? jobs.send('record', { i: `c${i}` })
          : t.db.transaction(async (tx) => {
              await tx.insert(sysParameter).values({ key: `tx-${i}`, value: { i } });
              // Open transactions that yield between statements: where pg-boss's statements could slip in.
              await delay(5);
              await tx.select().from(sysParameter).where(like(sysParameter.key, 'tx-%'));
              await delay(5);
              if (i % 4 === 1) throw new Error('roll back');
              return 'committed';
            }),
      ),
    );
    const ids = outcomes.filter((_, i) => i % 2 === 0).map((o) => (o.status === 'fulfilled' ? String(o.value) : ''));
    expect(ids.every(Boolean)).toBe(true);
    for (const id of ids) await completed(jobs, id);
    const keys = (await t.db.select({ key: sysParameter.key }).from(sysParameter)).map((r) => r.key);
    for (let i = 0; i < n; i++) {
      if (i % 2 === 0) expect(keys).toContain(`job-c${i}`);
      else if (i % 4 === 1) expect(keys).not.toContain(`tx-${i}`);
      else expect(keys).toContain(`tx-${i}`);
    }
  });

  it('on stop lets a running job finish, or fails it so that it runs again after the next start', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    const slowJobs = (behaviour: 'finish' | 'hang') => [
      defineJob({
        name: 'slow',
        retryDelaySeconds: 0,
        handler: async () => {
          runs += 1;
          if (behaviour === 'hang' && runs === 1) await new Promise(() => {});
          if (behaviour === 'finish') await released;
          return { runs };
        },
      }),
    ];

    const first = await startJobs(slowJobs('finish'));
    const finishing = await first.send('slow');
    await vi.waitFor(() => expect(runs).toBe(1), settle);
    const stopping = first.stop();
    release();
    await stopping;
    const later = await startJobs([]);
    expect((await later.getJob(finishing))?.state).toBe('completed');
    await later.stop();

    runs = 0;
    const second = await startJobs(slowJobs('hang'), 1000);
    const hanging = await second.send('slow');
    await vi.waitFor(() => expect(runs).toBe(1), settle);
    await second.stop();
    const restarted = await startJobs(slowJobs('hang'));
    expect((await completed(restarted, hanging))?.output).toEqual({ runs: 2 });
    await restarted.stop();
  });

  it('a run left active by a server killed outright runs again at the next start when its job reclaims it', async () => {
    let runs = 0;
    const reclaimed = [
      defineJob({
        name: 'reclaimed',
        retryDelaySeconds: 0,
        reclaimOnStart: true,
        handler: async () => {
          runs += 1;
          if (runs === 1) await new Promise(() => {});
          return { runs };
        },
      }),
    ];
    // The first system hangs in the run and is never stopped: as far as pg-boss knows, it is still active.
    const killed = await startJobs(reclaimed, 1000);
    const id = await killed.send('reclaimed');
    await vi.waitFor(() => expect(runs).toBe(1), settle);
    expect((await killed.getJob(id))?.state).toBe('active');
    const next = await startJobs(reclaimed);
    expect((await completed(next, id))?.output).toEqual({ runs: 2 });
    await next.stop();
    await killed.stop();
  });
});
