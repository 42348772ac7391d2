/**
 * Awaits `work` while heartbeating every `everyMs`. A chunk can wait long in the embedder's queue
 * behind the chunks of other activities (one embedder per worker); without beats meanwhile,
 * Temporal would time the activity out and run the chunk again, doing the embedding twice.
 */
export async function keepBeating<T>(
  heartbeat: (() => void) | undefined,
  everyMs: number,
  work: Promise<T>,
): Promise<T> {
  if (!heartbeat) return work;
  const timer = setInterval(heartbeat, everyMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
