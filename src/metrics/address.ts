import net from 'node:net';

/** The worker's metrics port when METRICS_PORT is unset: the usual port of a Prometheus exporter. */
export const DEFAULT_METRICS_PORT = 9464;

/**
 * METRICS_PORT: `9464` listens on 127.0.0.1 (only this host may scrape: a sidecar or a local
 * agent); `0.0.0.0:9464` or `[::]:9464` on the interface given (a container scraped from outside);
 * `0` on a free port, logged at start. One variable rather than a host and a port: the loopback
 * default is the case to get right, the address is the exception.
 */
export function parseMetricsAddress(value: string): { host: string; port: number } {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    throw new Error(`"${value}" is not a port (0-65535) or host:port, e.g. 9464 or 0.0.0.0:9464`);
  }
  const host = m[1] ? m[1].replace(/^\[(.*)\]$/, '$1') : '127.0.0.1';
  if (m[1]?.startsWith('[') && net.isIPv6(host) === false)
    throw new Error(`"${value}": ${host} is not an IPv6 address`);
  return { host, port };
}
