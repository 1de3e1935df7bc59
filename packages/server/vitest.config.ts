import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'server',
    root: import.meta.dirname,
    include: ['src/**/*.test.ts'],
    globalSetup: ['src/test/global-setup.ts'],
    // Generous: CI runs on machines whose cores are busy with other work.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A worker keeps its imported modules from one file to the next: each file importing the whole
    // server afresh cost about five seconds of a core (351 s of a 524 s run on PostgreSQL). The files
    // share no module state they rely on: each makes its own app, database copy and broker.
    isolate: false,
    // Every core: vitest's default leaves one idle, which on a 2-core machine means one worker. Each
    // test file has its own database copy (PGlite from a dump, or a PostgreSQL database from the
    // template) and its own broker, so files run side by side safely.
    maxWorkers: availableParallelism(),
    // A project with its own worker count runs as a group of its own, after the others.
    sequence: { groupOrder: 1 },
  },
});
