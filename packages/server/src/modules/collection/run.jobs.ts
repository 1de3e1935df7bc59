import { defineJob } from '../../jobs/job-system';
import { COLLECTION_DUE_JOB, COLLECTION_RUN_JOB, type CollectionRuns } from './run.service';

/**
 * Every minute, on one instance: due task occurrences become runs, due repairs start. Stately, so a
 * tick that finds the last one still working adds nothing.
 */
export const collectionDueJob = (runs: CollectionRuns) =>
  defineJob({
    name: COLLECTION_DUE_JOB,
    schedule: '* * * * *',
    policy: 'stately',
    retryLimit: 0,
    expireInSeconds: 10 * 60,
    handler: async () => ({ runs: (await runs.tick()).length }),
  });

/**
 * One job per run (its id is the run's): expands the run once and stores each answer; after a restart
 * it runs again and continues. The user who pressed "run now" follows it on `progress/{jobId}`.
 */
export const collectionRunJob = (runs: CollectionRuns) =>
  defineJob<{ runId: string }>({
    name: COLLECTION_RUN_JOB,
    concurrency: 4,
    retryLimit: 5,
    retryDelaySeconds: 2,
    expireInSeconds: 8 * 3600,
    handler: ({ runId }, context) => runs.execute(runId, (p) => context.progress(p), context.signal),
  });
