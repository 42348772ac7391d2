import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The abort signal of the training running in this async context. Training is long (minutes) and
 * runs on the worker's own thread in small steps that yield to the event loop; a shutdown must
 * end it within seconds, not when it is done. The signal reaches the fitting loops (linear.ts,
 * sparse-linear.ts) through the async context instead of through every fitting function's
 * options: a dozen signatures stay as they are, and code that fits outside a training (tests,
 * the eval) has no signal and is never cut.
 */
const trainingSignal = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` with `signal` as its training signal. */
export function cancellableTraining<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  return signal ? trainingSignal.run(signal, fn) : fn();
}

/** Lets the event loop run (a signal, a timer, a poll), then stops the training if it was aborted. */
export async function trainingStep(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  trainingSignal.getStore()?.throwIfAborted();
}
