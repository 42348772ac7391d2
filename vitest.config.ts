import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs three tiers; one alone with `npx vitest --project <name>`:
 * - unit: the tests beside the code in src/, no infrastructure (seconds; the local model loads in
 *   the analysis tests);
 * - integration: test/integration/ against a migrated PostgreSQL only (test/global-setup-db.ts), and
 *   test/workflows/: each workflow on a Temporal dev server of its own with stand-in activities;
 * - e2e: test/e2e/, against the whole stack: PostgreSQL, Temporal and the service as api and worker
 *   processes (test/global-setup.ts).
 * `npm run test:deployment` runs the two that prove what a deployment goes through:
 * - lifecycle: the e2e files that restart, restore or shut the service down (LIFECYCLE), on the
 *   e2e stack;
 * - cluster: the end-to-end cases that prove the scaled-out topology (the real Temporal server on
 *   PostgreSQL, two api processes behind a balancer, an analysis and a delivery worker;
 *   test/global-setup-cluster.ts), plus test/cluster/ which only makes sense there.
 * The tiers that read the analysis heads train them first, once per run, into a folder of the
 * run's own (test/global-setup-heads.ts).
 * Minutes-long fault scenarios run with `npm run test:chaos` (vitest.chaos.config.ts).
 */
/** A second installation or a restored backup on one Temporal, graceful shutdowns: a minute and more each. */
const LIFECYCLE = ['test/e2e/installation-identity.test.ts', 'test/e2e/grpc-health.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Files run one at a time: the stack is shared, and a slow embedder on 2 cores must not starve
    // another file's timers.
    fileParallelism: false,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['src/**/*.test.ts'], globalSetup: ['test/global-setup-heads.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/workflows/**/*.test.ts'],
          globalSetup: ['test/global-setup-db.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: LIFECYCLE,
          globalSetup: ['test/global-setup-heads.ts', 'test/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'lifecycle',
          include: LIFECYCLE,
          globalSetup: ['test/global-setup-heads.ts', 'test/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: [
            'test/e2e/users-profiles.test.ts',
            'test/e2e/webhooks.test.ts',
            'test/e2e/worker-crash.test.ts',
            'test/e2e/segment-races.test.ts',
            'test/cluster/**/*.test.ts',
          ],
          globalSetup: ['test/global-setup-heads.ts', 'test/global-setup-cluster.ts'],
        },
      },
    ],
  },
});
