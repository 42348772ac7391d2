import { defineConfig } from 'vitest/config';

/**
 * `npm run test:chaos`: faults and load against the real stack, minutes long, so kept out of
 * `npm test`. The stack always runs its own PostgreSQL and Temporal here (they get stopped and
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
