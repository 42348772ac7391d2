import os from 'node:os';
import { Worker } from 'node:worker_threads';
import OpenAI from 'openai';

export interface Embedder {
  readonly name: string;
  readonly dimensions: number;
  embed(texts: string[]): Promise<number[][]>;
}

const MAX_CHARS = 2_000;
const OPENAI_MAX_INPUTS = 2_048;

function unit(v: number[]): number[] {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

// USE lite throws on an empty string and does not truncate: clean each text first.
const clean = (t: string) => (t.trim() === '' ? '.' : t.slice(0, MAX_CHARS));

/** Runs USE lite on its own thread (see embed-thread.mjs); restarted on the next call if it dies. */
function threadModel(script: URL): { embed(texts: string[]): Promise<number[][]> } {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: number[][]) => void; reject: (e: Error) => void }>();
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    worker = undefined;
  };
  const start = () => {
    const w = new Worker(script);
    w.on('message', (m: { id: number; vectors?: number[][]; error?: string }) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      // Idle, the thread must not keep a finished process (a CLI, a test) alive.
      if (pending.size === 0) worker?.unref();
      if (m.error !== undefined) p.reject(new Error(`local embedder: ${m.error}`));
      else p.resolve(m.vectors ?? []);
    });
    w.on('error', (err) => failAll(err));
    w.on('exit', (code) => failAll(new Error(`local embedder thread exited with code ${code}`)));
    return w;
  };
  return {
    embed(texts) {
      worker ??= start();
      worker.ref();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker!.postMessage({ id, texts });
      });
    },
  };
}

export interface LocalEmbedderOptions {
  /** Embedding threads, each with its own model (default: the number of cores). */
  threads?: number;
  /** Texts per model call (default 8). */
  callSize?: number;
  /** The threads' script (tests run one that can crash; default embed-thread.mjs). */
  threadScript?: URL;
}

/**
 * USE lite on a pool of threads. The model pads every call to its longest text, so a chunk is
 * sorted by length and cut into small calls of similar texts (less padding), and the calls are
 * shared by the threads as each becomes free. Vectors are the same as one call per text: each row
 * is computed on its own, padding aside (checked to 1e-6 in embedder.test.ts).
 *
 * A thread that dies fails its pending calls (the activity retries the chunk) and is started again
 * on its next call.
 */
export function createLocalEmbedder(opts: LocalEmbedderOptions = {}): Embedder {
  const threads = Math.max(1, opts.threads ?? os.availableParallelism());
  const callSize = Math.max(1, opts.callSize ?? 8);
  let pool: ReturnType<typeof threadModel>[] | undefined;
  return {
    name: 'local:universal-sentence-encoder-lite',
    dimensions: 512,
    async embed(texts) {
      if (texts.length === 0) return [];
      pool ??= Array.from({ length: threads }, () =>
        threadModel(opts.threadScript ?? new URL('./embed-thread.mjs', import.meta.url)),
      );
      const cleaned = texts.map(clean);
      const order = cleaned.map((_, i) => i).sort((a, b) => cleaned[a].length - cleaned[b].length);
      const calls: number[][] = [];
      for (let i = 0; i < order.length; i += callSize) calls.push(order.slice(i, i + callSize));
      const out: number[][] = new Array(texts.length);
      let next = 0;
      await Promise.all(
        pool.slice(0, Math.min(pool.length, calls.length)).map(async (model) => {
          while (next < calls.length) {
            const call = calls[next++];
            const vectors = await model.embed(call.map((i) => cleaned[i]));
            call.forEach((idx, k) => (out[idx] = unit(vectors[k])));
          }
        }),
      );
      return out;
    },
  };
}

export function createOpenAIEmbedder(cfg: { apiKey: string; baseURL?: string; model: string }): Embedder {
  // SDK retries off: Temporal owns retries.
  const client = new OpenAI({ apiKey: cfg.apiKey, baseURL: cfg.baseURL, maxRetries: 0, timeout: 60_000 });
  return {
    name: `openai:${cfg.model}`,
    dimensions: 0,
    async embed(texts) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += OPENAI_MAX_INPUTS) {
        // float, not the SDK's default base64: every OpenAI-compatible server supports it.
        const res = await client.embeddings.create({
          model: cfg.model,
          input: texts.slice(i, i + OPENAI_MAX_INPUTS).map(clean),
          encoding_format: 'float',
        });
        out.push(...[...res.data].sort((a, b) => a.index - b.index).map((d) => unit(d.embedding)));
      }
      return out;
    },
  };
}

export function createEmbedder(cfg: {
  provider: 'local' | 'openai';
  openaiApiKey?: string;
  openaiBaseUrl?: string;
  model: string;
  threads?: number;
  callSize?: number;
}): Embedder {
  if (cfg.provider === 'openai')
    return createOpenAIEmbedder({ apiKey: cfg.openaiApiKey ?? '', baseURL: cfg.openaiBaseUrl, model: cfg.model });
  return createLocalEmbedder({ threads: cfg.threads, callSize: cfg.callSize });
}
