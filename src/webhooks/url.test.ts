import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { validateWebhookUrl } from './url.js';

function rejection(raw: unknown): AppError {
  try {
    validateWebhookUrl(raw);
  } catch (err) {
    return err as AppError;
  }
  throw new Error(`accepted ${String(raw)}`);
}

describe('validateWebhookUrl', () => {
  it('accepts absolute https URLs with a host, port, path and query', () => {
    expect(validateWebhookUrl('https://hooks.example.com/in?x=1').toString()).toBe('https://hooks.example.com/in?x=1');
    expect(validateWebhookUrl('https://hooks.example.com:8443/').port).toBe('8443');
    expect(validateWebhookUrl('HTTPS://Example.COM').toString()).toBe('https://example.com/');
  });

  it.each([
    ['http://hooks.example.com/', /https/],
    ['ftp://hooks.example.com/', /https/],
    ['//hooks.example.com/path', /absolute/],
    ['/relative/path', /absolute/],
    ['hooks.example.com', /absolute|https/],
    ['https://', /absolute|host/],
    ['https://user:pass@hooks.example.com/', /user name or password/],
    ['https://user@hooks.example.com/', /user name or password/],
    ['', /non-empty string/],
    [42, /non-empty string/],
    [null, /non-empty string/],
    [`https://example.com/${'a'.repeat(2048)}`, /at most 2048/],
  ])('rejects %s as an invalid url', (raw, message) => {
    const err = rejection(raw);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('invalid_argument');
    expect(err.field).toBe('url');
    expect(err.message).toMatch(message);
  });

  it('accepts exactly 2048 characters', () => {
    const base = 'https://example.com/';
    expect(() => validateWebhookUrl(base + 'a'.repeat(2048 - base.length))).not.toThrow();
  });
});
