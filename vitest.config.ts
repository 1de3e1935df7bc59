import { defineConfig } from 'vitest/config';
import { webProjects } from './packages/web/vitest.config.ts';

export default defineConfig({
  test: {
    projects: [
      'packages/contracts/vitest.config.ts',
      'packages/server/vitest.config.ts',
      'packages/simulator/vitest.config.ts',
      ...webProjects,
    ],
  },
});
