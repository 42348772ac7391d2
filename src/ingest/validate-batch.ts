import { invalid } from '../errors.js';
import { isStorableText, requireId } from '../validation.js';
import { parseStrictTimestamp } from './timestamp.js';

export const MAX_USERS_PER_BATCH = 1_000;
export const MAX_USER_ID_LENGTH = 256;
export const MAX_TEXT_LENGTH = 10_000;
export const MAX_ATTRIBUTES = 50;
export const MAX_SOURCE_LABEL_LENGTH = 100;

export type Scalar = string | number | boolean | null;

export interface BatchItem {
  user_id: string;
  text: string;
  attributes: Record<string, Scalar>;
  timestamp: Date;
}

/**
 * A submission as both transports hand it over: typed, but not yet checked against the limits and
 * rules below (those are the domain's, so they live here and nowhere else).
 */
export interface IdentifyUsersInput {
  projectId: number;
  /** Defaults to `api`. */
  sourceLabel?: string | null;
  users: UserMessageInput[];
}

export interface UserMessageInput {
  userId: string;
  text: string;
  /** Scalar values only; checked here. */
  attributes?: Record<string, unknown> | null;
  /** An ISO 8601 string (HTTP) or a Date (a gRPC Timestamp); defaults to the submission time. */
  timestamp?: string | Date | null;
}

export interface ValidBatch {
  projectId: number;
  sourceLabel: string;
  items: BatchItem[];
}

/** Validates a whole submission before anything is stored; the first problem is reported by field. */
export function validateBatch(input: IdentifyUsersInput, now: Date): ValidBatch {
  const projectId = requireId(input.projectId, 'project_id');
  const sourceLabel = input.sourceLabel ?? 'api';
  if (
    typeof sourceLabel !== 'string' ||
    sourceLabel.trim() === '' ||
    sourceLabel.length > MAX_SOURCE_LABEL_LENGTH ||
    !isStorableText(sourceLabel)
  ) {
    throw invalid(
      'source_label',
      `source_label must be a non-empty string of at most ${MAX_SOURCE_LABEL_LENGTH} characters, without NUL or unpaired surrogates`,
    );
  }
  const users = input.users;
  if (users.length === 0) throw invalid('users', 'users must be a non-empty array');
  if (users.length > MAX_USERS_PER_BATCH) {
    throw invalid('users', `at most ${MAX_USERS_PER_BATCH} users per batch (got ${users.length})`);
  }
  const items = users.map((u, i) => validateUser(u, `users[${i}]`, now));
  return { projectId, sourceLabel, items };
}

/** A user id as every route takes it; `field` names it in the error. */
export function requireUserId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(field, 'user_id must be a non-empty string');
  if (value.length > MAX_USER_ID_LENGTH) {
    throw invalid(field, `user_id must be at most ${MAX_USER_ID_LENGTH} characters`);
  }
  if (!isStorableText(value)) throw invalid(field, 'user_id must not contain NUL characters or unpaired surrogates');
  // `.` and `..` are dot segments: browsers and fetch resolve them in a path, even percent-encoded,
  // so such a user's profile could not be read at /api/v1/profiles/{user_id} from those clients.
  // Refused since issue 34; ids stored before are still reached (requireStoredUserId).
  if (value === '.' || value === '..')
    throw invalid(field, 'user_id must not be "." or ".." (they cannot appear in a URL path)');
  return value;
}

/**
 * A user id as the routes that find stored data take it (read, export, erase, lift a
 * suppression, the audit trail by id): any id ingest ever stored, whatever the submission rules
 * (requireUserId) have refused since, such as `.` and `..`. Only what a lookup needs: a string
 * of 1 to MAX_USER_ID_LENGTH characters (the bound since the first version; '' must never match,
 * it is what an erased batch item keeps), and text PostgreSQL can take (no NUL, no lone
 * surrogate; ingest never stored either: a lone surrogate reached the database as U+FFFD).
 */
export function requireStoredUserId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_USER_ID_LENGTH) {
    throw invalid(field, `user_id must be 1 to ${MAX_USER_ID_LENGTH} characters`);
  }
  if (!isStorableText(value)) throw invalid(field, 'user_id must not contain NUL characters or unpaired surrogates');
  return value;
}

function validateUser(u: UserMessageInput, path: string, now: Date): BatchItem {
  const userId = requireUserId(u.userId, `${path}.user_id`);
  const text = u.text;
  if (text.trim() === '') throw invalid(`${path}.text`, 'text must be a non-empty string');
  if (text.length > MAX_TEXT_LENGTH)
    throw invalid(`${path}.text`, `text must be at most ${MAX_TEXT_LENGTH} characters`);
  return {
    user_id: userId,
    // PostgreSQL text cannot hold NUL; it carries no meaning in feedback, so it is dropped.
    text: text.replaceAll('\u0000', ''),
    attributes: validateAttributes(u.attributes, `${path}.attributes`),
    timestamp: validateTimestamp(u.timestamp, `${path}.timestamp`, now),
  };
}

/**
 * `__proto__` cannot be an attribute: stored, it would be a trap for every reader that indexes a
 * JavaScript object by attribute name, and the gRPC decoder drops it before it arrives. Refused,
 * never dropped (the gRPC preflight refuses it on the wire with this same error).
 */
export const reservedAttribute = (path: string) =>
  invalid(`${path}.__proto__`, 'attribute key __proto__ is reserved; rename the attribute');

function validateAttributes(raw: Record<string, unknown> | null | undefined, path: string): Record<string, Scalar> {
  if (raw === undefined || raw === null) return {};
  const entries = Object.entries(raw);
  if (entries.length > MAX_ATTRIBUTES) throw invalid(path, `attributes must have at most ${MAX_ATTRIBUTES} keys`);
  for (const [key, value] of entries) {
    if (key === '__proto__') throw reservedAttribute(path);
    if (key === '' || key.length > 100 || !isStorableText(key)) {
      throw invalid(path, 'attribute keys must be 1 to 100 characters without NUL or unpaired surrogates');
    }
    const ok =
      value === null ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value)) ||
      (typeof value === 'string' && value.length <= 1_000 && isStorableText(value));
    if (!ok)
      throw invalid(
        `${path}.${key}`,
        'attribute values must be strings (max 1000 chars), finite numbers, booleans or null',
      );
  }
  return Object.fromEntries(entries) as Record<string, Scalar>;
}

/** Back-filled history starts here: older dates are almost always a wrong field (epoch 0, a typo). */
export const EARLIEST_TIMESTAMP = new Date('2000-01-01T00:00:00Z');
/** Clocks drift; more than this ahead of the server is a wrong date, and would freeze the profile's window. */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;

function validateTimestamp(raw: string | Date | null | undefined, path: string, now: Date): Date {
  if (raw === undefined || raw === null) return now;
  const parsed = raw instanceof Date ? raw : parseStrictTimestamp(raw);
  if (typeof parsed === 'string') throw invalid(path, parsed);
  // A gRPC Timestamp beyond what a Date holds decodes as an invalid Date.
  if (Number.isNaN(parsed.getTime())) throw invalid(path, 'timestamp is out of range');
  if (parsed < EARLIEST_TIMESTAMP)
    throw invalid(path, `timestamp must not be before ${EARLIEST_TIMESTAMP.toISOString()}`);
  if (parsed.getTime() > now.getTime() + MAX_FUTURE_SKEW_MS) {
    throw invalid(path, `timestamp is in the future (more than 5 minutes after the server's ${now.toISOString()})`);
  }
  return parsed;
}
