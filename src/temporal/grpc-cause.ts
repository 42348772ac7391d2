import { status } from '@grpc/grpc-js';

/**
 * The gRPC status under a Temporal client error, as `CODE: details`, or undefined when there is
 * none. The client wraps the server's answer (`Failed to start Workflow` names only the call), so
 * a log line without this says that something fails but never why.
 */
export function grpcCause(err: unknown): string | undefined {
  // A short walk: the client nests the server's error one or two levels down.
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, details } = e as { code?: unknown; details?: unknown };
    if (typeof code === 'number' && typeof details === 'string') return `${status[code] ?? code}: ${details}`;
  }
  return undefined;
}
