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
  },
});
