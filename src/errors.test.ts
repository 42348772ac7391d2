import { describe, expect, it } from 'vitest';
import { KnexTimeoutError } from 'knex';
import { databaseFault, isDatabaseDown } from './errors.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('databaseFault', () => {
  it('PostgreSQL refusing sessions or short of a resource (class 53) is transient: refusing, retry in 5 s', () => {
    for (const code of ['53300', '53000', '53100', '53200', '53400']) {
      expect(databaseFault(pgError(code, 'sorry, too many clients already'))).toMatchObject({
        kind: 'refusing',
        retryAfterSeconds: 5,
      });
    }
  });

  it("the pool's acquire timeout is busy, not down", () => {
    const fault = databaseFault(
      new KnexTimeoutError('Knex: Timeout acquiring a connection. The pool is probably full.'),
    );
    expect(fault).toMatchObject({ kind: 'busy', retryAfterSeconds: 2 });
    expect(fault!.message).toContain('busy');
  });

  it('a lost or absent server is down', () => {
    for (const err of [pgError('ECONNREFUSED'), pgError('57P01'), pgError('08006'), new Error('timeout expired')]) {
      expect(databaseFault(err)?.kind).toBe('down');
    }
  });

  it('errors of the request itself are not transient', () => {
    for (const err of [pgError('23505'), pgError('22P02'), pgError('42703'), new Error('boom'), null, undefined]) {
      expect(databaseFault(err)).toBeUndefined();
      expect(isDatabaseDown(err)).toBe(false);
    }
  });
});
