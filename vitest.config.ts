import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      'packages/contracts/vitest.config.ts',
      'packages/server/vitest.config.ts',
      'packages/simulator/vitest.config.ts',
      'packages/web/vitest.config.ts',
    ],
  },
});
