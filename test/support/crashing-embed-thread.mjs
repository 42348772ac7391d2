// The real embedding thread, except that a call holding the text "__crash_thread__" kills the
// thread (process.exit in a worker thread ends that thread only), like an out-of-memory or a native
// fault in the model would. Used by src/analysis/embedder.test.ts.
import process from 'node:process';
import { parentPort } from 'node:worker_threads';
import '../../src/analysis/embed-thread.mjs';

// Registered after the real listener (a static import runs first), in the same dispatch: the thread
// dies before the model starts on the call.
parentPort.on('message', ({ texts }) => {
  if (texts.includes('__crash_thread__')) process.exit(3);
});
