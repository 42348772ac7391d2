import { defineConfig } from 'vitest/config';

/**
 * `npm run test:chaos`: faults and load against the real stack, minutes long, so kept out of
 * `npm test`. `npm run test:soak`: the 10-minute soak alone (SOAK_MINUTES, SOAK_RATE), kept out of
 * the landing run (.ci/run) so CI stays short; run it before a release or after a change to the
 * pipeline's memory or queueing. The stack always runs its own PostgreSQL and Temporal here (they get stopped and
 * started), and files run one at a time because each one breaks something shared. The
 * `chaos-cluster` project stops the real Temporal server under the scaled-out topology. The heads
 * are trained for the run first, as in `npm test` (test/global-setup-heads.ts).
 */
export default defineConfig({
  test: {
    testTimeout: 600_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    pool: 'forks',
    // Figures printed by the soak belong in the output.
    silent: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'chaos',
          include: ['test/chaos/*.test.ts'],
          exclude: ['test/chaos/soak.test.ts'],
          globalSetup: ['test/global-setup-heads.ts', 'test/chaos/global-setup.ts'],
          setupFiles: ['test/support/await-stack.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'soak',
          include: ['test/chaos/soak.test.ts'],
          globalSetup: ['test/global-setup-heads.ts', 'test/chaos/global-setup.ts'],
          setupFiles: ['test/support/await-stack.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'chaos-cluster',
          include: ['test/chaos/temporal-outage.test.ts'],
          globalSetup: ['test/global-setup-heads.ts', 'test/chaos/global-setup-cluster.ts'],
          setupFiles: ['test/support/await-stack.ts'],
        },
      },
    ],
  },
});
