import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { call, control, newTenant, stack, waitFor, waitForBatch } from '../support/api.js';

/**
 * WEBHOOK_MAX_IN_FLIGHT (default 4) is a bound per webhook across every delivery worker, not per
 * process (issue 25): with two delivery workers taking the same webhook's attempts, its receiver
 * never has more than 4 requests open.
 */
describe('in-flight bound per webhook with two delivery workers', () => {
  afterAll(() => control('worker2/kill'));

  it(
    'never has more than 4 attempts open at one receiver, while both workers deliver',
    { timeout: 240_000 },
    async () => {
      expect(stack().topology).toBe('cluster');
      await control('worker2/start');
      let open = 0;
      let maxOpen = 0;
      const received = new Set<string>();
      const server = https.createServer({ cert: stack().certPem, key: stack().keyPem }, (req, res) => {
        maxOpen = Math.max(maxOpen, ++open);
        req.resume();
        req.on('end', () =>
          setTimeout(() => {
            open--;
            received.add(String(req.headers['x-event-id']));
            res.writeHead(200).end('ok');
          }, 400),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const t = await newTenant();
        const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
        const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
        expect((await call('POST', `${base}/webhooks`, { key: t.key, body: { url } })).status).toBe(201);
        const n = 40;
        const users = Array.from({ length: n }, (_, i) => ({ user_id: `bound-${i}`, text: `Hello number ${i}` }));
        const batch = await call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });
        expect(batch.status).toBe(202);
        expect(await waitForBatch(batch.body.source_id, 120_000)).toEqual({ processed: n, failed: 0 });
        const sizes = () => ({
          one: readFileSync(stack().logs.deliveryWorker!, 'utf8').split('"webhook attempt"').length - 1,
          two: readFileSync(stack().logs.worker2, 'utf8').split('"webhook attempt"').length - 1,
        });
        const before = sizes();
        // Deploying a segment over the existing profiles fans out n user_added events at once.
        await call('POST', `${base}/segments`, {
          key: t.key,
          body: { id: 'everyone', name: 'Everyone', rule: { field: 'window_size', op: '>=', value: 1 } },
        });
        await call('POST', `${base}/segments/everyone/deploy`, { key: t.key });
        await waitFor('every event delivered', async () => received.size === n, 180_000, 200);
        const after = sizes();
        expect(maxOpen).toBeLessThanOrEqual(4);
        expect(maxOpen).toBeGreaterThanOrEqual(2);
        // Both delivery workers took part, so the bound held across processes, not within one.
        expect(after.one - before.one).toBeGreaterThan(0);
        expect(after.two - before.two).toBeGreaterThan(0);
      } finally {
        await new Promise((r) => server.close(r));
      }
    },
  );
});
