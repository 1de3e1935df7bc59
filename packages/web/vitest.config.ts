import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  test: {
    name: 'web',
    environment: 'happy-dom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    // A busy machine (CI beside other jobs) stretches lazy chunks and lookups far past vitest's 5 s;
    // a test that is merely slow must not count as failed. Keep above the asyncUtilTimeout in setup.ts.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // Every core: vitest's default leaves one idle, which on a 2-core machine means one worker. Files
    // stay isolated: several replace a module (vi.mock) that another file imports for real.
    maxWorkers: availableParallelism(),
    // A project with its own worker count runs as a group of its own (the server's is 1).
    sequence: { groupOrder: 2 },
  },
});
