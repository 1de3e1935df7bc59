import { expect, vi } from 'vitest';
import type { JobRecord } from '../jobs/job-system';
import type { TestApp } from './harness';

/** Runs one of the app's declared jobs now (as its schedule would) and answers its finished record. */
export async function runJob(t: TestApp, name: string, data: Record<string, unknown> = {}): Promise<JobRecord> {
  const id = await t.app.jobs.send(name, data);
  await vi.waitFor(async () => expect((await t.app.jobs.getJob(id))?.state).toBe('completed'), {
    timeout: 20_000,
    interval: 100,
  });
  return (await t.app.jobs.getJob(id)) as JobRecord;
}
