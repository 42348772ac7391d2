import type { Logger } from '../observability/logger.js';
import { grpcCause } from '../temporal/grpc-cause.js';

/**
 * Starts each item's workflow in order; the first start that fails (Temporal away) ends the round
 * with a warning naming the item, and the relay's next pass tries again.
 */
export async function startInOrder<T>(
  log: Logger,
  items: T[],
  start: (item: T) => Promise<unknown>,
  failure: { message: string; ids: (item: T) => Record<string, unknown> },
): Promise<void> {
  for (const item of items) {
    try {
      await start(item);
    } catch (err) {
      log.warn(failure.message, { ...failure.ids(item), err: (err as Error).message, cause: grpcCause(err) });
      return;
    }
  }
}
