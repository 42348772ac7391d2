import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { invalid } from '../../errors.js';
import { MAX_USERS_PER_BATCH, reservedAttribute } from '../../ingest/validate-batch.js';

/**
 * The top-level fields of an encoded message, read from the wire with the reader the generated
 * code uses, without decoding anything: each field number with the bytes of a length-delimited
 * value. Ends at the first thing it cannot read (a truncation, a group): the decoder judges
 * malformed bytes, this only looks.
 */
function* wireFields(bytes: Uint8Array): Generator<{ field: number; value?: Uint8Array }> {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    let field: number;
    let wire: WireType;
    try {
      [field, wire] = reader.tag();
    } catch {
      return;
    }
    if (wire === WireType.StartGroup || wire === WireType.EndGroup) return;
    // A field whose value is cut off still counts as there: its tag was.
    let value: Uint8Array | undefined;
    try {
      if (wire === WireType.LengthDelimited) value = reader.bytes();
      else reader.skip(wire);
    } catch {
      yield { field };
      return;
    }
    yield { field, value };
  }
}

/** How many times top-level field `field` occurs; counting ends once it passes `stopAbove`. */
export function countField(bytes: Uint8Array, field: number, stopAbove = Infinity): number {
  let count = 0;
  for (const f of wireFields(bytes)) {
    if (f.field === field && ++count > stopAbove) break;
  }
  return count;
}

/** The length-delimited occurrences of top-level field `field`, as slices of `bytes`. */
function fieldBytes(bytes: Uint8Array, field: number): Uint8Array[] {
  const found: Uint8Array[] = [];
  for (const f of wireFields(bytes)) if (f.field === field && f.value) found.push(f.value);
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
