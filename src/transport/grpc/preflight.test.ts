import { describe, expect, it } from 'vitest';
import { Struct_FieldsEntry } from '../../../gen/google/protobuf/struct.js';
import { IdentifyUsersRequest } from '../../../gen/profiling/v1/users.js';
import { countField, refuseOversizedBatch, refuseProtoAttributes } from './preflight.js';

describe('countField', () => {
  it('counts the entries of a repeated message field and skips every other field', () => {
    const bytes = Buffer.from(
      IdentifyUsersRequest.encode({
        projectId: 2 ** 40,
        sourceLabel: 'label',
        idempotencyKey: 'k',
        users: [
          { userId: 'a', text: 'x'.repeat(300), attributes: { plan: 'pro' }, timestamp: new Date() },
          { userId: 'b', text: '' },
          { userId: '', text: '' },
        ],
      }).finish(),
    );
    expect(countField(bytes, 2)).toBe(3);
    expect(countField(bytes, 1)).toBe(1);
    expect(countField(bytes, 5)).toBe(0);
    expect(countField(bytes, 2, 1)).toBe(2);
  });

  it('stops at bytes it cannot skip instead of throwing', () => {
    expect(countField(Buffer.from([0x12, 0x00, 0x12, 0x7f, 0x01]), 2)).toBe(2);
    expect(countField(Buffer.from([0x12, 0x00, 0x0b, 0x12, 0x00]), 2)).toBe(1); // a group
    expect(countField(Buffer.from([0x08, 0xff, 0xff]), 1)).toBe(1); // an unfinished varint
    expect(countField(Buffer.alloc(0), 2)).toBe(0);
  });
});

describe('refuseOversizedBatch', () => {
  const empties = (n: number) => Buffer.from(Array.from({ length: n }, () => [0x12, 0x00]).flat());

  it('lets the batch limit through and refuses one more, before decoding', () => {
    expect(() => refuseOversizedBatch(empties(1_000))).not.toThrow();
    expect(() => refuseOversizedBatch(empties(1_001))).toThrow(
      expect.objectContaining({
        code: 'invalid_argument',
        field: 'users',
        message: 'at most 1000 users per batch (got more)',
      }),
    );
  });

  it('refuses 2.6 M entries (a 5 MB message) after reading the first 1,001', () => {
    const bytes = Buffer.alloc(5_200_000);
    for (let i = 0; i < bytes.length; i += 2) bytes[i] = 0x12;
    expect(() => refuseOversizedBatch(bytes)).toThrow(/at most 1000 users/);
    // The count it refuses on stops one past the limit instead of walking all 2.6 M entries.
    expect(countField(bytes, 2, 1_000)).toBe(1_001);
    expect(countField(bytes, 2)).toBe(2_600_000);
  });
});

describe('refuseProtoAttributes', () => {
  // The generated encoder cannot write a `__proto__` attribute (its Struct.wrap drops it too), so
  // the second user's Struct is written by hand: one fields entry, key `__proto__`, a string value.
  const entry = (key: string) => Buffer.from(Struct_FieldsEntry.encode({ key, value: 'x' }).finish());
  const withAttributes = (key: string) => {
    const struct = Buffer.concat([Buffer.from([0x0a, entry(key).length]), entry(key)]);
    const first = IdentifyUsersRequest.encode({
      projectId: 1,
      users: [{ userId: 'a', text: 't', attributes: { plan: 'pro' } }],
    }).finish();
    const user = Buffer.concat([Buffer.from([0x0a, 1, 0x62, 0x12, 1, 0x74, 0x1a, struct.length]), struct]);
    return Buffer.concat([first, Buffer.from([0x12, user.length]), user]);
  };

  it('refuses an attribute named __proto__, naming the user, and lets other keys through', () => {
    const decoded = IdentifyUsersRequest.decode(withAttributes('__proto__'));
    expect(decoded.users).toHaveLength(2);
    expect(Object.keys(decoded.users[1].attributes ?? {})).toEqual([]); // what the decoder alone would do
    expect(() => refuseProtoAttributes(withAttributes('__proto__'))).toThrow(
      expect.objectContaining({ code: 'invalid_argument', field: 'users[1].attributes.__proto__' }),
    );
    expect(IdentifyUsersRequest.decode(withAttributes('proto')).users[1].attributes).toEqual({ proto: 'x' });
    expect(() => refuseProtoAttributes(withAttributes('proto'))).not.toThrow();
  });
});
