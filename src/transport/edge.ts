import { isIP } from 'node:net';
import type { Metadata } from '@grpc/grpc-js';
import { clientAddress, type TrustProxy } from './client-address.js';
import type { AppContext } from '../app.js';
import { authenticateClient, type Caller } from '../auth/api-keys.js';
import { AppError, databaseFault } from '../errors.js';
import type { Logger } from '../observability/logger.js';

/**
 * What both transports share at the edge: authenticating a call from its key and client address
 * (failures counted per address, see auth/failure-limiter.ts), and turning any error into the one
 * AppError the HTTP and gRPC maps translate. Each transport only adds its own wire format.
 */
export function authenticateCall(
  ctx: AppContext,
  address: string | undefined,
  key: string | undefined,
): Promise<Caller> {
  return authenticateClient(ctx, address, key);
}

/**
 * A domain error as it is; a transient database fault (away, refusing sessions, or our pool busy)
 * as 503 with Retry-After and its cause in words; anything else logged and hidden.
 */
export function toAppError(err: unknown, log: Logger): AppError {
  if (err instanceof AppError) return err;
  const fault = databaseFault(err);
  if (fault) return new AppError('unavailable', fault.message, undefined, fault.retryAfterSeconds);
  log.error('unhandled error', { err });
  return new AppError('internal', 'internal error');
}

/**
 * The address in a gRPC peer string. grpc-js servers give `address:port` with IPv6 unbracketed
 * (`::1:5678`); other forms are `ipv4:1.2.3.4:5678`, `ipv6:[::1]:5678` and `unix:/path`.
 */
export function grpcPeerAddress(peer: string): string {
  const s = peer.replace(/^ipv[46]:/, '');
  const bracketed = /^\[([^\]]+)\]:\d+$/.exec(s);
  if (bracketed) return bracketed[1];
  const withPort = /^(.+):\d+$/.exec(s);
  return withPort && isIP(withPort[1]) ? withPort[1] : s;
}

/** A gRPC call's client address: its peer, or the forwarded address a trusted proxy gave. */
export function grpcClientAddress(peer: string, metadata: Metadata, trustProxy: TrustProxy): string | undefined {
  return clientAddress(grpcPeerAddress(peer), metadata.get('x-forwarded-for').map(String), trustProxy);
}

export { clientAddress, compileTrustedProxies, type TrustProxy } from './client-address.js';
