// An embedding thread that answers only once it holds two calls: it proves that the pool posts a
// thread its next call before the current one returns (CALLS_AT_THREAD in embedder.ts). With one
// call at a time it would never answer. Vectors are a fixed unit vector: no model is loaded.
// Used by src/analysis/embedder.test.ts.
import { parentPort } from 'node:worker_threads';

const held = [];
parentPort.on('message', (call) => {
  held.push(call);
  if (held.length < 2) return;
  for (const { id, texts } of held.splice(0))
    parentPort.postMessage({ id, vectors: texts.map(() => [1, ...new Array(511).fill(0)]) });
});
