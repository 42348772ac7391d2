import proxyaddr from 'proxy-addr';

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
