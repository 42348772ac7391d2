import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible embeddings server (the one allowed fake: the paid API is out of reach here).
 * Vectors are deterministic and built from each text's words, so similar texts get similar vectors
 * and heads trained on them learn something; it answers at once, so a test that needs the service
 * past the corpus' embedding gets there in seconds instead of the local model's minute or two.
 */
export interface FakeOpenAI {
  /** `http://127.0.0.1:<port>/v1`, for OPENAI_BASE_URL or the SDK's baseURL. */
  baseURL: string;
  /** Every input text received, in order. */
  inputs: string[];
  close(): Promise<void>;
}

export function wordVector(text: string, dimensions = 64): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? [])
    v[createHash('sha256').update(w).digest().readUInt16BE(0) % dimensions] += 1;
  // Never the zero vector: a text without letters still has a direction.
  return v.map((x, i) => x + (i === 0 ? 0.01 : 0));
}

export async function startFakeOpenAI(opts: { dimensions?: number } = {}): Promise<FakeOpenAI> {
  const inputs: string[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      inputs.push(...body.input);
      const data = (body.input as string[]).map((t, index) => ({
        object: 'embedding',
        index,
        embedding: wordVector(t, opts.dimensions),
      }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    inputs,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
