import { describe, expect, it } from 'vitest';
import { Router } from './router.js';

const ok = async () => ({ status: 200 });

describe('router', () => {
  const router = new Router().add('GET', '/projects/:id/hooks', ok).add('POST', '/projects/:id/hooks', ok);

  it('answers a known path asked with another method with 405 and Allow', async () => {
    const found = router.match('PUT', '/projects/1/hooks');
    expect(found).toBeDefined();
    expect(await found!.handler({} as never)).toMatchObject({ status: 405, headers: { Allow: 'GET, HEAD, POST' } });
  });

  it('answers a path whose parameter does not decode with no route, whatever the method', () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      expect(router.match(method, '/projects/%ED%A0%80/hooks'), method).toBeUndefined();
    }
  });
});
