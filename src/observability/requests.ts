/**
 * One event per finished request, from either transport: the access log, the metrics and anything
 * else that wants to know subscribe here, so the transports emit once and know none of them.
 */
export interface RequestDone {
  transport: 'http' | 'grpc';
  /** The route pattern (`/api/v1/profiles/:user_id`) or the gRPC method path; never a raw path. */
  route: string;
  /** The HTTP method, or `POST` for gRPC calls. */
  method: string;
  /** The HTTP status code, or the gRPC status name (`OK`, `INVALID_ARGUMENT`, ...). */
  status: number | string;
  seconds: number;
  requestId: string;
}

type Listener = (done: RequestDone) => void;
const listeners = new Set<Listener>();

/** Subscribes; returns the unsubscribe function. */
export function onRequestDone(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function requestDone(done: RequestDone): void {
  for (const listener of listeners) listener(done);
}
