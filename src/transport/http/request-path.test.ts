import { describe, expect, it } from 'vitest';
import { requestPath } from './request-path.js';
import { Router } from './router.js';

const ok = async () => ({ status: 200 });
const routed = (router: Router, method: string, target: string) => {
  const found = router.match(method, requestPath(target, new URL(target, 'http://gateway')));
  return found && { pattern: found.pattern, params: found.params };
};

/** A user id `.` or `..` (stored before ingest refused them) is named in a path, percent-encoded or not. */
describe('request path', () => {
  const router = new Router()
    .add('DELETE', '/api/v1/profiles/:user_id', ok)
    .add('GET', '/api/v1/profiles/:user_id', ok)
    .add('GET', '/api/v1/profiles/:user_id/export', ok)
    .add('DELETE', '/api/v1/suppressions/:user_id', ok);

  it('keeps percent-encoded dot segments, which the URL parser resolves, as the parameter', () => {
    expect(new URL('/api/v1/profiles/%2E%2E/export', 'http://gateway').pathname).toBe('/api/v1/export');
    expect(routed(router, 'GET', '/api/v1/profiles/%2E%2E/export?project_id=1')).toEqual({
      pattern: '/api/v1/profiles/:user_id/export',
      params: { user_id: '..' },
    });
    expect(routed(router, 'DELETE', '/api/v1/profiles/%2e%2E?project_id=1&suppress=true')).toEqual({
      pattern: '/api/v1/profiles/:user_id',
      params: { user_id: '..' },
    });
    expect(routed(router, 'DELETE', '/api/v1/suppressions/%2E?project_id=1')).toEqual({
      pattern: '/api/v1/suppressions/:user_id',
      params: { user_id: '.' },
    });
    expect(routed(router, 'GET', '/api/v1/profiles/.%2E/export')?.params).toEqual({ user_id: '..' });
  });

  it('keeps literal dot segments too, as a client that sends the path as given means them', () => {
    expect(routed(router, 'GET', '/api/v1/profiles/..')).toEqual({
      pattern: '/api/v1/profiles/:user_id',
      params: { user_id: '..' },
    });
    expect(routed(router, 'GET', '/api/v1/profiles/./export')?.params).toEqual({ user_id: '.' });
    // Resolved, the same target would have named no route.
    expect(routed(router, 'GET', '/api/v1/profiles/../../v1/profiles')).toBeUndefined();
  });

  it('ends at the query or a fragment, and reads an absolute-form target as the URL parser does', () => {
    expect(requestPath('/a/b?x=/c', new URL('/a/b?x=/c', 'http://gateway'))).toBe('/a/b');
    expect(requestPath('/a/b#f', new URL('/a/b#f', 'http://gateway'))).toBe('/a/b');
    const absolute = 'http://example.test/api/v1/profiles/x?project_id=1';
    expect(requestPath(absolute, new URL(absolute))).toBe('/api/v1/profiles/x');
  });
});
