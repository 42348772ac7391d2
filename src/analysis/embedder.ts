import os from 'node:os';
import { Worker } from 'node:worker_threads';
import OpenAI from 'openai';

/** Who a call is for (a tenant): on a busy model, calls of different lanes take turns. */
export type Lane = number | string;

export interface Embedder {
  readonly name: string;
  readonly dimensions: number;
  embed(texts: string[], lane?: Lane): Promise<number[][]>;
}

const MAX_CHARS = 2_000;
const OPENAI_MAX_INPUTS = 2_048;

function unit(v: number[]): number[] {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

// USE lite throws on an empty string and does not truncate: clean each text first.
const clean = (t: string) => (t.trim() === '' ? '.' : t.slice(0, MAX_CHARS));

interface Job {
  texts: string[];
  resolve: (v: number[][]) => void;
  reject: (e: Error) => void;
}

/**
 * Calls posted to a thread before its current one returns. The thread runs them one at a time
 * (embed-thread.mjs); the second waits in its port, so the model starts it the moment the first
 * ends instead of after the main thread has taken the answer and posted the next call. With one,
 * the threads idled whenever the worker's main thread was busy (a chunk's readers, a fold): the
 * bench's ingest found them 51% busy each (per-thread CPU from /proc) with the CPU not full.
 */
const CALLS_AT_THREAD = 2;

/**
 * Runs USE lite on its own thread (see embed-thread.mjs), restarted on the next call if it dies.
 * Waiting calls are queued per lane and served round-robin: a tenant whose chunks queue many calls
 * delays another tenant's call by the calls already at the thread (CALLS_AT_THREAD) and one turn,
 * not by its whole queue.
 */
function threadModel(script: URL, niceOffset: number): { embed(texts: string[], lane: Lane): Promise<number[][]> } {
  let worker: Worker | undefined;
  let nextId = 0;
  const running = new Map<number, Job>();
  const queues = new Map<Lane, Job[]>();
  /** Lanes with waiting calls, next to serve first. */
  const turns: Lane[] = [];
  const fail = (err: Error) => {
    for (const job of running.values()) job.reject(err);
    running.clear();
    worker = undefined;
    pump(); // waiting calls go on, on a new thread
  };
  const start = () => {
    const w = new Worker(script, { workerData: { niceOffset } });
    w.on('message', (m: { id: number; vectors?: number[][]; error?: string }) => {
      const job = running.get(m.id);
      if (worker !== w || !job) return;
      running.delete(m.id);
      if (m.error !== undefined) job.reject(new Error(`local embedder: ${m.error}`));
      else job.resolve(m.vectors ?? []);
      pump();
    });
    // Only the current thread's death fails its calls ('error' is followed by 'exit').
    w.on('error', (err) => worker === w && fail(err));
    w.on('exit', (code) => worker === w && fail(new Error(`local embedder thread exited with code ${code}`)));
    return w;
  };
  function pump(): void {
    while (running.size < CALLS_AT_THREAD) {
      const lane = turns.shift();
      if (lane === undefined) break;
      const queue = queues.get(lane)!;
      const job = queue.shift()!;
      if (queue.length > 0) turns.push(lane);
      else queues.delete(lane);
      worker ??= start();
      const id = nextId++;
      running.set(id, job);
      worker.postMessage({ id, texts: job.texts });
    }
    // Idle, the thread must not keep a finished process (a CLI, a test) alive.
    if (running.size === 0) worker?.unref();
    else worker?.ref();
  }
  return {
    embed(texts, lane) {
      return new Promise((resolve, reject) => {
        const queue = queues.get(lane);
        if (queue) queue.push({ texts, resolve, reject });
        else {
          queues.set(lane, [{ texts, resolve, reject }]);
          turns.push(lane);
        }
        pump();
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
  /**
   * How many nice steps below its process the model threads run (default 5, Linux only): under
   * a CPU shortage the process's own thread (folds, Temporal tasks) goes first, embedding after.
   */
  threadNiceOffset?: number;
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
    async embed(texts, lane = '') {
      if (texts.length === 0) return [];
      pool ??= Array.from({ length: threads }, () =>
        threadModel(opts.threadScript ?? new URL('./embed-thread.mjs', import.meta.url), opts.threadNiceOffset ?? 5),
      );
      const cleaned = texts.map(clean);
      const order = cleaned.map((_, i) => i).sort((a, b) => cleaned[a].length - cleaned[b].length);
      const calls: number[][] = [];
      for (let i = 0; i < order.length; i += callSize) calls.push(order.slice(i, i + callSize));
      const out: number[][] = new Array(texts.length);
      let next = 0;
      // CALLS_AT_THREAD loops per thread, so that a chunk alone also keeps its threads fed.
      const loops = Math.min(pool.length * CALLS_AT_THREAD, calls.length);
      await Promise.all(
        Array.from({ length: loops }, (_, k) => pool![k % pool!.length]).map(async (model) => {
          while (next < calls.length) {
            const call = calls[next++];
            const vectors = await model.embed(
              call.map((i) => cleaned[i]),
              lane,
            );
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
  /** Local model threads: nice steps below their process (see LocalEmbedderOptions). */
  threadNiceOffset?: number;
}): Embedder {
  // A role wraps it in its metrics (src/metrics/embedder.ts) where it composes the process.
  return cfg.provider === 'openai'
    ? createOpenAIEmbedder({ apiKey: cfg.openaiApiKey ?? '', baseURL: cfg.openaiBaseUrl, model: cfg.model })
    : createLocalEmbedder({ threads: cfg.threads, callSize: cfg.callSize, threadNiceOffset: cfg.threadNiceOffset });
}
