import { AppError, invalid } from '../../errors.js';

/**
 * What a JSON body may hold, checked on its bytes as they arrive, before JSON.parse.
 *
 * JSON.parse costs about what the number of values costs, not the bytes: 5 MB of 160,000 tiny
 * users blocked the event loop for 150-250 ms, the same 5 MB as 1,000 long texts for 10 ms. A
 * request refused after parsing still stalled every other request for that long. Counting on the
 * bytes costs a few microseconds per 64 KB chunk, so an oversized body is refused while it is read
 * and never parsed, and what is parsed is at most `maxValues` values (about 15 ms of JSON.parse).
 *
 * Hand-written because no library counts without building the values: the streaming JSON parsers
 * on npm build every value too and measured 20-50x slower than JSON.parse per body.
 */
export interface JsonLimits {
  /** Values (containers and their members or elements, counted as `{`, `[` and `,`) in the whole body. */
  maxValues?: number;
  /** Elements of an array member of the root object, by key (`users` of a batch). */
  maxItems?: Record<string, { max: number; error: (max: number) => AppError }>;
}

/** Enough for the largest valid request (1,000 users with 50 attributes each is about 55,000). */
export const MAX_JSON_VALUES = 100_000;

const QUOTE = 0x22;
/** More than a tracked key (`users`) with every character escaped (6 bytes each) and its quote. */
const MAX_KEY_BYTES = 64;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** A scanner fed chunk by chunk; `write` answers the error of the first limit passed, once, or undefined. */
export function createJsonBudget(limits: JsonLimits = {}) {
  const maxValues = limits.maxValues ?? MAX_JSON_VALUES;
  let values = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  // Keys of the root object: the string after `{` or `,` at depth 1 is a key, read (escapes
  // included) so that `"us\u0065rs"` counts as `users`, as JSON.parse will read it.
  let expectKey = false;
  let key: number[] | undefined;
  let keyTooLong = false;
  let lastKey = '';
  let tracked: { max: number; error: (max: number) => AppError } | undefined;
  let commas = 0;

  const byte = (b: number): AppError | undefined => {
    if (inString) {
      // A key longer than any tracked one could be (escapes included) is none of them: not kept.
      if (key) {
        if (key.length < MAX_KEY_BYTES) key.push(b);
        else keyTooLong = true;
      }
      if (escaped) escaped = false;
      else if (b === BACKSLASH) escaped = true;
      else if (b === QUOTE) {
        inString = false;
        if (key) {
          key.pop();
          lastKey = keyTooLong ? '' : readKey(key);
          key = undefined;
          keyTooLong = false;
          expectKey = false;
        }
      }
      return undefined;
    }
    switch (b) {
      case QUOTE:
        inString = true;
        if (depth === 1 && expectKey) key = [];
        return undefined;
      case 0x7b: // {
      case 0x5b: // [
        depth++;
        if (++values > maxValues) return tooMany(maxValues);
        if (depth === 1) expectKey = b === 0x7b;
        if (depth === 2 && b === 0x5b) {
          tracked = limits.maxItems?.[lastKey];
          commas = 0;
        }
        return undefined;
      case 0x7d: // }
      case 0x5d: // ]
        if (depth === 2) tracked = undefined;
        depth--;
        return undefined;
      case COMMA:
        if (++values > maxValues) return tooMany(maxValues);
        if (depth === 1) expectKey = true;
        // n commas separate n + 1 elements.
        if (depth === 2 && tracked && ++commas >= tracked.max) return tracked.error(tracked.max);
        return undefined;
      default:
        return undefined;
    }
  };

  let failed: AppError | undefined;
  return {
    write(chunk: Uint8Array): AppError | undefined {
      if (failed) return undefined;
      for (let i = 0; i < chunk.length; i++) {
        const err = byte(chunk[i]);
        if (err) return (failed = err);
      }
      return undefined;
    },
  };
}

function readKey(raw: number[]): string {
  try {
    return JSON.parse(`"${Buffer.from(raw).toString('utf8')}"`) as string;
  } catch {
    return ''; // not a valid string: JSON.parse of the body refuses it anyway
  }
}

const tooMany = (max: number) =>
  new AppError('payload_too_large', `request body holds more than ${max} JSON values`, 'body');

/** The limit of a batch's `users`, as the domain words it. */
export const usersAtMost = (max: number) => invalid('users', `at most ${max} users per batch (got more)`);
