import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import type { AppContext } from '../app.js';
import { authenticateClient, type Caller } from '../auth/api-keys.js';
import { AppError, isDatabaseDown } from '../errors.js';
import type { Logger } from '../logger.js';

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

/** A domain error as it is; a lost database as 503-and-retry; anything else logged and hidden. */
export function toAppError(err: unknown, log: Logger): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseDown(err))
    return new AppError('unavailable', 'the database is unavailable; retry shortly', undefined, 5);
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

/** Which peers are trusted proxies (TRUSTED_PROXIES), compiled once. */
export type TrustProxy = (address: string, hop: number) => boolean;

export function compileTrustedProxies(list: string[]): TrustProxy {
  return proxyaddr.compile(list);
}

/**
 * The client's address for the failed-authentication limit: the connecting peer, unless it is a
 * trusted proxy (TRUSTED_PROXIES), then the nearest address in `X-Forwarded-For` (HTTP header or
 * gRPC metadata) that is not a trusted proxy itself. Forwarded addresses from an untrusted peer
 * are ignored: anyone could write them. `proxy-addr` is the resolver Express uses.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trust: TrustProxy,
): string | undefined {
  if (!peer) return undefined;
  const xff = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  return proxyaddr({ socket: { remoteAddress: peer }, headers: { 'x-forwarded-for': xff } } as never, trust);
}
