import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type OperationAccess, PUBLIC, SESSION } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness';

/**
 * Every route's access rule and audit kind, checked in, so that a change to who may call what
 * shows up in review as a diff of access-snapshot.json instead of passing unnoticed.
 *
 * When a change of access is intended (a new route, a rule deliberately widened or narrowed),
 * regenerate the file and commit it with the change:
 *
 *   UPDATE_ACCESS_SNAPSHOT=1 npx vitest run --project server src/rbac/access-snapshot.test.ts
 *
 * After merging branches that add routes, regenerate it once the same way and review the diff.
 */
const SNAPSHOT = path.join(import.meta.dirname, 'access-snapshot.json');

/** One line a route, e.g. `needs /sysMGT/userMGT/delete; audit delete`, so the file diffs and merges by route. */
function describeRoute(access: OperationAccess | undefined, audit: string | undefined): string {
  const rule =
    access === undefined
      ? 'UNDECLARED'
      : access === PUBLIC
        ? 'PUBLIC'
        : access === SESSION
          ? 'SESSION'
          : `needs ${[...access.anyOf].sort().join(' | ')}${access.allOf?.length ? ` & ${[...access.allOf].sort().join(' & ')}` : ''}`;
  return audit ? `${rule}; audit ${audit}` : rule;
}

describe('access snapshot', () => {
  let t: TestApp;

  beforeAll(async () => {
    // The same map whichever broker the run uses: the embedded one adds the browser's /mqtt route.
    t = await createTestApp({}, { embeddedBroker: true });
  });
  afterAll(() => t.close());

  it('matches the checked-in map of every route to its access rule and audit kind', () => {
    // Fastify's HEAD twin of each GET shares its config; listing it would only repeat the GET.
    const current = Object.fromEntries(
      t.app.routes
        .filter((r) => r.method !== 'HEAD')
        .map((r) => [`${r.method} ${r.url}`, describeRoute(r.access, r.audit)] as const)
        .sort(([a], [b]) => a.localeCompare(b)),
    );

    if (process.env.UPDATE_ACCESS_SNAPSHOT === '1') {
      writeFileSync(SNAPSHOT, `${JSON.stringify(current, null, 2)}\n`);
      return;
    }
    const stored = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, string>;
    expect(
      current,
      'access rules changed: if intended, run UPDATE_ACCESS_SNAPSHOT=1 npx vitest run --project server src/rbac/access-snapshot.test.ts and commit the diff',
    ).toEqual(stored);
  });
});
