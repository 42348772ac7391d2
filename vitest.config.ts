import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs four tiers; one alone with `npx vitest --project <name>`:
 * - unit: the tests beside the code in src/, no infrastructure (seconds);
 * - integration: test/integration/ against a migrated PostgreSQL only (test/global-setup-db.ts), and
 *   test/workflows/: each workflow on a Temporal dev server of its own with stand-in activities;
 * - analysis: the tests that run the local model (LOCAL_MODEL): the run's trained heads, the
 *   embedder, the heads' training and cache;
 * - e2e: test/e2e/, against the whole stack: PostgreSQL, Temporal and the service as api and worker
 *   processes (test/global-setup.ts).
 * `npm run test:deployment` runs the two that prove what a deployment goes through:
 * - lifecycle: the e2e files that start, restore or shut the service down (LIFECYCLE), on the
 *   e2e stack;
 * - cluster: the end-to-end cases that prove the scaled-out topology (the real Temporal server on
 *   PostgreSQL, two api processes behind a balancer, an analysis and a delivery worker;
 *   test/global-setup-cluster.ts), plus test/cluster/ which only makes sense there.
 * The heads are trained once per run, into a folder of the run's own, in the background
 * (test/global-setup-heads.ts): unit and integration (group 1) run meanwhile, and the tiers that
 * read the heads (group 2) start when they and their stack are ready (test/support/stack-later.ts,
 * test/support/await-stack.ts).
 * Minutes-long fault scenarios run with `npm run test:chaos` (vitest.chaos.config.ts).
 * `npm test` (scripts/test.ts) makes the heads ready first, then runs analysis in a vitest process of
 * its own beside unit, integration and e2e, at a lower priority: the groups below order one process.
 */
/**
 * The tests that run the local model: they run after unit and integration, so that the heads'
 * training has the CPU to itself meanwhile, and those that read the run's heads wait for them.
 */
const LOCAL_MODEL = [
  'src/analysis/analyze.test.ts',
  'src/analysis/embedder.test.ts',
  'src/analysis/probe/probe.test.ts',
  'test/integration/analysis-heads.test.ts',
  'test/integration/sarcasm-detector.test.ts',
];
/**
 * What a deployment's processes go through: a second installation and a restored backup on one
 * Temporal, graceful shutdowns, and `npm start` run as a user runs it.
 */
const LIFECYCLE = [
  'test/e2e/installation-identity.test.ts',
  'test/e2e/grpc-health.test.ts',
  'test/e2e/npm-start.test.ts',
  'test/e2e/ctrl-c.test.ts',
  'test/e2e/demo.test.ts',
];

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
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: LOCAL_MODEL,
          // One fork for every file, modules loaded once: a fork and its imports per file cost
          // more than most of these tests, and they share no state worth isolating.
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'analysis',
          include: LOCAL_MODEL,
          globalSetup: ['test/global-setup-heads.ts', 'test/global-setup-db.ts'],
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/workflows/**/*.test.ts'],
          exclude: LOCAL_MODEL,
          globalSetup: ['test/global-setup-db.ts'],
          setupFiles: ['test/support/await-temporal-cli.ts'],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: LIFECYCLE,
          globalSetup: ['test/global-setup-heads.ts', 'test/global-setup.ts'],
          setupFiles: ['test/support/await-stack.ts'],
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'lifecycle',
          include: LIFECYCLE,
          globalSetup: ['test/global-setup-heads.ts', 'test/global-setup.ts'],
          setupFiles: ['test/support/await-stack.ts'],
          sequence: { groupOrder: 2 },
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
          setupFiles: ['test/support/await-stack.ts'],
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
