import { afterAll, describe, expect, it } from 'vitest';
import { stack, waitFor } from '../support/api.js';
import { healthClient } from '../support/grpc-health.js';
import { chaos } from './support.js';

/**
 * The api's readiness needs the Temporal frontend as well as PostgreSQL (transport/readiness.ts).
 * Here the stack's own Temporal server is stopped for real, and the standard gRPC health service
 * must follow /readyz both ways. (PostgreSQL cut and shutdown: test/e2e/grpc-health.test.ts.)
 */
describe('gRPC health while the Temporal server is stopped', () => {
  afterAll(() => chaos('temporal/start'));

  it('reports NOT_SERVING for the server and every service while Temporal is stopped, and SERVING once it is back', async () => {
    const health = await healthClient(stack().grpcAddress);
    health.watch();
    const readyz = () => fetch(`${stack().gatewayUrl}/readyz`);
    try {
      await waitFor('SERVING', async () => (await health.all()).every((s) => s === 'SERVING'), 30_000);
      expect((await readyz()).status).toBe(200);

      await chaos('temporal/stop');
      await waitFor('NOT_SERVING', async () => (await health.all()).every((s) => s === 'NOT_SERVING'), 60_000);
      const down = await readyz();
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ database: true, temporal: false });
      await waitFor('the watcher to see NOT_SERVING', async () => health.watched.includes('NOT_SERVING'), 5_000);

      await chaos('temporal/start');
      await waitFor('SERVING again', async () => (await health.all()).every((s) => s === 'SERVING'), 180_000);
      expect((await readyz()).status).toBe(200);
      await waitFor(
        'the watcher to see SERVING again',
        async () => health.watched.lastIndexOf('SERVING') > health.watched.indexOf('NOT_SERVING'),
        5_000,
      );
      expect(health.watched[0]).toBe('SERVING');
    } finally {
      health.close();
    }
  });
});
