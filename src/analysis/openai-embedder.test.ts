import http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIEmbedder } from './embedder.js';

/** A small OpenAI-compatible server (the one allowed fake: there is no internet here). */
function vectorFor(text: string): number[] {
  const h = createHash('sha256').update(text).digest();
  return Array.from({ length: 8 }, (_, i) => h[i] - 128);
}

describe('openai embedder against an OpenAI-compatible server', () => {
  const requests: { auth?: string; body: any }[] = [];
  let server: http.Server;
  let baseURL = '';

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw);
        requests.push({ auth: req.headers.authorization, body });
        // Answer out of order: the client must sort by index.
        const data = (body.input as string[])
          .map((t, index) => ({ object: 'embedding', index, embedding: vectorFor(t) }))
          .reverse();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('sends the model, inputs and key, and returns unit vectors in input order', async () => {
    const e = createOpenAIEmbedder({ apiKey: 'sk-test', baseURL, model: 'text-embedding-3-small' });
    requests.length = 0;
    const out = await e.embed(['alpha', 'beta', '']);
    expect(requests).toHaveLength(1);
    expect(requests[0].auth).toBe('Bearer sk-test');
    expect(requests[0].body.model).toBe('text-embedding-3-small');
    expect(requests[0].body.input).toEqual(['alpha', 'beta', '.']);
    expect(requests[0].body.encoding_format).toBe('float');
    const expected = vectorFor('beta');
    const norm = Math.hypot(...expected);
    expect(out[1].map((x) => x * norm)).toEqual(expected.map((x) => expect.closeTo(x, 6)));
    expect(Math.hypot(...out[0])).toBeCloseTo(1, 6);
  });

  it('splits more than 2,048 inputs into several calls, preserving order', async () => {
    const e = createOpenAIEmbedder({ apiKey: 'sk-test', baseURL, model: 'm' });
    requests.length = 0;
    const texts = Array.from({ length: 2049 }, (_, i) => `t${i}`);
    const out = await e.embed(texts);
    expect(requests.map((r) => r.body.input.length)).toEqual([2048, 1]);
    expect(out).toHaveLength(2049);
    const last = vectorFor('t2048');
    expect(out[2048][0]).toBeCloseTo(last[0] / Math.hypot(...last), 6);
  });

  it('does not retry on its own (Temporal owns retries)', async () => {
    let hits = 0;
    const failing = http.createServer((_req, res) => {
      hits++;
      res.writeHead(500).end('{}');
    });
    await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/v1`;
    const e = createOpenAIEmbedder({ apiKey: 'k', baseURL: url, model: 'm' });
    await expect(e.embed(['x'])).rejects.toThrow();
    expect(hits).toBe(1);
    await new Promise<void>((r) => failing.close(() => r()));
  });
});
