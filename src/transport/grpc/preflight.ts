import { invalid } from '../../errors.js';
import { MAX_USERS_PER_BATCH, reservedAttribute } from '../../users/validate-batch.js';

/**
 * How many times top-level field `field` occurs in an encoded message, read from the wire without
 * decoding anything; counting ends once it passes `stopAbove`. Stops at the first thing it cannot
 * skip (a group, a truncation): the decoder judges malformed bytes, this only counts.
 */
export function countField(bytes: Uint8Array, field: number, stopAbove = Infinity): number {
  let pos = 0;
  let count = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (pos >= bytes.length) return -1;
      const b = bytes[pos++];
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
    return -1;
  };
  while (pos < bytes.length && count <= stopAbove) {
    const tag = varint();
    if (tag < 0) break;
    const wire = tag % 8;
    if (Math.floor(tag / 8) === field) count++;
    if (wire === 0) {
      if (varint() < 0) break;
    } else if (wire === 1) pos += 8;
    else if (wire === 2) {
      const len = varint();
      if (len < 0) break;
      pos += len;
    } else if (wire === 5) pos += 4;
    else break;
  }
  return count;
}

/**
 * The length-delimited occurrences of top-level field `field`, as slices of `bytes`, read from the
 * wire like countField (which stops at what it cannot skip).
 */
export function fieldBytes(bytes: Uint8Array, field: number): Uint8Array[] {
  const found: Uint8Array[] = [];
  let pos = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (pos >= bytes.length) return -1;
      const b = bytes[pos++];
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
    return -1;
  };
  while (pos < bytes.length) {
    const tag = varint();
    if (tag < 0) break;
    const wire = tag % 8;
    if (wire === 0) {
      if (varint() < 0) break;
    } else if (wire === 1) pos += 8;
    else if (wire === 2) {
      const len = varint();
      if (len < 0 || pos + len > bytes.length) break;
      if (Math.floor(tag / 8) === field) found.push(bytes.subarray(pos, pos + len));
      pos += len;
    } else if (wire === 5) pos += 4;
    else break;
  }
  return found;
}

/**
 * The generated Struct decoder stores each attribute with `fields[key] = value`, so an attribute
 * named `__proto__` would set the object's prototype and vanish: the batch would be stored without
 * it and answered 202. Read on the wire (users: 2, attributes: 3, Struct.fields: 1, entry key: 1),
 * it is refused with the field named, as the gateway refuses it.
 */
export function refuseProtoAttributes(bytes: Buffer): void {
  fieldBytes(bytes, 2).forEach((user, i) => {
    for (const struct of fieldBytes(user, 3)) {
      for (const entry of fieldBytes(struct, 1)) {
        for (const key of fieldBytes(entry, 1)) {
          if (Buffer.from(key).toString('utf8') === '__proto__') throw reservedAttribute(`users[${i}].attributes`);
        }
      }
    }
  });
}

/**
 * IdentifyUsersRequest.users is field 2. Each entry may be two bytes on the wire (`12 00`) but
 * becomes an object of ~80 bytes once decoded: a 5 MB message of 2.6 M empty users would cost
 * ~200 MB of heap only to be refused by the batch limit. Counted on the wire, it is refused first.
 */
export function refuseOversizedBatch(bytes: Buffer): void {
  if (countField(bytes, 2, MAX_USERS_PER_BATCH) > MAX_USERS_PER_BATCH) {
    throw invalid('users', `at most ${MAX_USERS_PER_BATCH} users per batch (got more)`);
  }
}
