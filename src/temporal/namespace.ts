import { Connection } from '@temporalio/client';
import { status as grpcStatus } from '@grpc/grpc-js';
import { msToTs } from '@temporalio/common/lib/time.js';
import type { SearchAttributeType } from './search-attributes.js';
import { ensureSearchAttributes } from './ensure-search-attributes.js';

/** How long Temporal keeps a closed workflow's history. */
const RETENTION = '3 days';

/**
 * Registers the namespace and the search attributes the workflows set, on a server that may still
 * be starting (its answers are retried until `timeoutMs`). Both steps are idempotent: what exists
 * is kept, so this runs on every start. The dev server does the same with its own flags.
 */
export async function registerNamespace(
  address: string,
  namespace: string,
  searchAttributes: Record<string, SearchAttributeType>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: 1_000 });
      await ensure(connection, namespace, searchAttributes);
      return;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await connection?.close().catch(() => undefined);
    }
  }
  throw new Error(`Temporal at ${address} did not accept namespace ${namespace}: ${(last as Error)?.message}`);
}

async function ensure(
  connection: Connection,
  namespace: string,
  searchAttributes: Record<string, SearchAttributeType>,
): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (err) {
    if ((err as { code?: number }).code !== grpcStatus.NOT_FOUND) throw err;
    await connection.workflowService
      .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(RETENTION) })
      .catch((e: { code?: number }) => {
        if (e.code !== grpcStatus.ALREADY_EXISTS) throw e;
      });
    // Registered; the next round checks it is visible and adds the attributes.
    throw new Error('namespace registered; waiting for it to be visible');
  }
  // A problem may be a registration not listed yet: the next round checks again.
  const { problem } = await ensureSearchAttributes(connection, namespace, searchAttributes);
  if (problem) throw new Error(problem);
}
