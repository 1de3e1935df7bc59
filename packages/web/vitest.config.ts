import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The test files that replace a module (vi.mock): they run each in a worker of its own, as a replaced module
 * would leak into the files after it. Found by reading the files, so a new one joins by itself.
 */
const MOCKING = readdirSync(`${root}src`, { recursive: true, encoding: 'utf8' })
  .filter((file) => /\.test\.tsx?$/.test(file))
  .map((file) => `src/${file}`)
  .filter((file) => /\bvi\.(?:do)?[mM]ock\(/.test(readFileSync(`${root}${file}`, 'utf8')));

function webProject(name: string, files: { include: string[]; exclude?: string[] }, isolate: boolean) {
  return {
    root,
    plugins: [react()],
    resolve: { alias: { '@': `${root}src` } },
    test: {
      name,
      environment: 'happy-dom',
      ...files,
      setupFiles: ['src/test/setup.ts'],
      // A busy machine (CI beside other jobs) stretches lazy chunks and lookups far past vitest's 5 s;
      // a test that is merely slow must not count as failed. Keep above the asyncUtilTimeout in setup.ts.
      testTimeout: 60_000,
      hookTimeout: 30_000,
      // The other files share a worker's modules (antd, React, the app's own): importing them afresh for
      // each file cost a third of the project's time. setup.ts resets what a test leaves behind.
      isolate,
      // Every core: vitest's default leaves one idle, which on a 2-core machine means one worker.
      maxWorkers: availableParallelism(),
      // A project with its own worker count runs as a group of its own (the server's is 1).
      sequence: { groupOrder: 2 },
    },
  } satisfies TestProjectInlineConfiguration;
}

/** `--project 'web*'` runs both. */
export const webProjects = [
  webProject('web', { include: ['src/**/*.test.{ts,tsx}'], exclude: MOCKING }, false),
  webProject('web-mocking', { include: MOCKING }, true),
];

export default defineConfig(webProjects[0]);
