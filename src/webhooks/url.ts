/**
 * Checks a webhook URL when it is created or updated. Whether its host is allowed (public address)
 * is decided at send time by ssrf.ts, because DNS answers can change after the URL was saved.
 */
import { invalid } from '../errors.js';

export const MAX_URL_LENGTH = 2048;

export function validateWebhookUrl(raw: unknown): URL {
  if (typeof raw !== 'string' || raw.trim() === '') throw invalid('url', 'url must be a non-empty string');
  if (raw.length > MAX_URL_LENGTH) throw invalid('url', `url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('url', 'url must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:') throw invalid('url', 'url must use https://');
  if (url.hostname === '') throw invalid('url', 'url must have a host');
  // Credentials in the URL would be stored and shown back in clear text; receivers should use the signature.
  if (url.username !== '' || url.password !== '') throw invalid('url', 'url must not contain a user name or password');
  return url;
}
