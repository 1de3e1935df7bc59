import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test as base } from '@playwright/test';

export { expect } from '@playwright/test';

const timedOut = path.join(process.env.E2E_SCRATCH ?? '', 'timed-out');

/**
 * Playwright's test, but a journey that ran into its time limit is not run again: minutes more on a
 * machine already too busy for it only delay the red result. A quick failure is still retried, so a flake
 * shows as one (and still fails the run: scripts/test.mjs counts it).
 */
export const test = base.extend<{ noRetryAfterTimeout: undefined }>({
  noRetryAfterTimeout: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
    async ({}, use, testInfo) => {
      const mark = path.join(timedOut, testInfo.testId);
      test.skip(testInfo.retry > 0 && existsSync(mark), 'ran into its time limit: not retried');
      await use(undefined);
      if (testInfo.status === 'timedOut') {
        mkdirSync(timedOut, { recursive: true });
        writeFileSync(mark, '');
      }
    },
    { auto: true },
  ],
});
