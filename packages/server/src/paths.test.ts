import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPILED, MIGRATIONS_DIR, REPO_ROOT, SIMULATOR_CLI, WEB_DIST } from './paths';

// The compiled bundles find the same files from packages/server/dist: the journeys run on them (e2e/serve.mjs).
describe('where the installation files are, from the sources', () => {
  it('leads to the repository, its migrations and the simulator source', () => {
    expect(existsSync(path.join(REPO_ROOT, 'packages/server/package.json'))).toBe(true);
    expect(existsSync(path.join(MIGRATIONS_DIR, 'meta/_journal.json'))).toBe(true);
    expect(COMPILED).toBe(false);
    expect(SIMULATOR_CLI).toBe(path.join(REPO_ROOT, 'packages/simulator/src/cli.ts'));
    expect(existsSync(SIMULATOR_CLI)).toBe(true);
    expect(WEB_DIST).toBe(path.join(REPO_ROOT, 'packages/web/dist'));
  });
});
