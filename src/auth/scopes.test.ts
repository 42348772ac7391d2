import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { holdsScope, isScope, requireScope, SCOPES } from './scopes.js';

describe('scopes', () => {
  it('lets a write scope hold its read, never the other way round', () => {
    expect(holdsScope(['segments:write'], 'segments:read')).toBe(true);
    expect(holdsScope(['segments:read'], 'segments:write')).toBe(false);
    expect(holdsScope(['webhooks:write'], 'segments:read')).toBe(false);
    expect(holdsScope(['labels:write'], 'labels:read')).toBe(true);
    // No other scope implies another: privacy is not a read of profiles, keys is not projects.
    for (const held of SCOPES)
      for (const needed of SCOPES)
        if (held !== needed && !(held.endsWith(':write') && needed === held.replace(':write', ':read')))
          expect(holdsScope([held], needed), `${held} → ${needed}`).toBe(false);
  });

  it('refuses with permission_denied naming the scope', () => {
    let err: unknown;
    try {
      requireScope(['ingest'], 'privacy');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'permission_denied', message: expect.stringContaining('"privacy"') });
    expect(() => requireScope(['privacy'], 'privacy')).not.toThrow();
  });

  it('knows only its own names', () => {
    expect(SCOPES.every(isScope)).toBe(true);
    for (const v of ['admin', 'Ingest', 'segments', 'segments:*', '', null, 1]) expect(isScope(v)).toBe(false);
  });
});
