import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'simulator',
    root: import.meta.dirname,
    include: ['src/**/*.test.ts'],
    // Generous: CI runs on machines whose cores are busy with other work.
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
