import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Minutes-long fault scenarios run with `npm run test:chaos` (vitest.chaos.config.ts).
    exclude: ['**/node_modules/**', 'test/chaos/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // The integration tests share one stack (PostgreSQL, Temporal, the service); files run one at a time
    // so a slow embedder on 2 cores does not starve another file's timers.
    fileParallelism: false,
    pool: 'forks',
  },
});
