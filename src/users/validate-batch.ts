import { invalid } from '../errors.js';
import { isStorableText, requireId, requireObject } from '../validation.js';
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

export interface ValidBatch {
  projectId: number;
  sourceLabel: string;
  items: BatchItem[];
}

/** Validates a whole submission before anything is stored; the first problem is reported by field. */
export function validateBatch(rawBody: unknown, now: Date): ValidBatch {
  const body = requireObject(rawBody);
  const projectId = requireId(body.project_id, 'project_id');
  const sourceLabel = body.source_label === undefined || body.source_label === null ? 'api' : body.source_label;
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
  const users = body.users;
  if (!Array.isArray(users) || users.length === 0) throw invalid('users', 'users must be a non-empty array');
  if (users.length > MAX_USERS_PER_BATCH) {
    throw invalid('users', `at most ${MAX_USERS_PER_BATCH} users per batch (got ${users.length})`);
  }
  const items = users.map((u, i) => validateUser(u, `users[${i}]`, now));
  return { projectId, sourceLabel, items };
}

function validateUser(raw: unknown, path: string, now: Date): BatchItem {
  const u = requireObject(raw, path);
  const userId = u.user_id;
  if (typeof userId !== 'string' || userId.trim() === '')
    throw invalid(`${path}.user_id`, 'user_id must be a non-empty string');
  if (userId.length > MAX_USER_ID_LENGTH) {
    throw invalid(`${path}.user_id`, `user_id must be at most ${MAX_USER_ID_LENGTH} characters`);
  }
  if (!isStorableText(userId))
    throw invalid(`${path}.user_id`, 'user_id must not contain NUL characters or unpaired surrogates');
  const text = u.text;
  if (typeof text !== 'string' || text.trim() === '') throw invalid(`${path}.text`, 'text must be a non-empty string');
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

function validateAttributes(raw: unknown, path: string): Record<string, Scalar> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw invalid(path, 'attributes must be an object of scalar values');
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > MAX_ATTRIBUTES) throw invalid(path, `attributes must have at most ${MAX_ATTRIBUTES} keys`);
  for (const [key, value] of entries) {
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

function validateTimestamp(raw: unknown, path: string, now: Date): Date {
  if (raw === undefined || raw === null) return now;
  if (typeof raw !== 'string') throw invalid(path, 'timestamp must be an ISO 8601 date-time string');
  const parsed = parseStrictTimestamp(raw);
  if (typeof parsed === 'string') throw invalid(path, parsed);
  if (parsed < EARLIEST_TIMESTAMP)
    throw invalid(path, `timestamp must not be before ${EARLIEST_TIMESTAMP.toISOString()}`);
  if (parsed.getTime() > now.getTime() + MAX_FUTURE_SKEW_MS) {
    throw invalid(path, `timestamp is in the future (more than 5 minutes after the server's ${now.toISOString()})`);
  }
  return parsed;
}
