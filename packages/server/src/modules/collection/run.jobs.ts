import { defineJob } from '../../jobs/job-system';
import type { RunExecutor } from './run-executor';
import { COLLECTION_RUN_JOB, type RunScheduler } from './run-scheduler';

const COLLECTION_DUE_JOB = 'collection-due';

/**
 * Every minute, on one instance: due task occurrences become runs, due repairs start. Stately, so a
 * tick that finds the last one still working adds nothing.
 */
export const collectionDueJob = (scheduler: RunScheduler) =>
  defineJob({
    name: COLLECTION_DUE_JOB,
    schedule: '* * * * *',
    policy: 'stately',
    retryLimit: 0,
    expireInSeconds: 10 * 60,
    handler: async () => ({ runs: (await scheduler.tick()).length }),
  });

/**
 * One job per run (its id is the run's): expands the run once and stores each answer; after a restart
 * it runs again and continues. The user who pressed "run now" follows it on `progress/{jobId}`.
 */
export const collectionRunJob = (executor: RunExecutor) =>
  defineJob<{ runId: string }>({
    name: COLLECTION_RUN_JOB,
    concurrency: 4,
    retryLimit: 5,
    retryDelaySeconds: 2,
    expireInSeconds: 8 * 3600,
    handler: ({ runId }, context) => executor.execute(runId, (p) => context.progress(p), context.signal),
  });
