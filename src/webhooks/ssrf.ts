/**
 * Keeps webhook deliveries off private networks (server-side request forgery): a customer could
 * otherwise point a webhook at the cloud metadata service, at our database or at their neighbour's
 * intranet and read the answer back from the delivery log.
 *
 * Ranges follow the IANA special-purpose registries. IPv6 is allowed only inside global unicast
 * 2000::/3; addresses that embed an IPv4 address (IPv4-mapped, NAT64, 6to4) are judged by it.
 */
import { promises as dns } from 'node:dns';
import { isIP, isIPv4 } from 'node:net';

export class SsrfError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SsrfError';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** The first checked address, plus every checked address (for the connection's family fallback). */
export interface CheckedTarget extends ResolvedAddress {
  all: ResolvedAddress[];
}

export type LookupAll = (host: string, options: { all: true }) => Promise<{ address: string; family: number }[]>;

type Range = [prefix: string, bits: number, kind: string];

const V4_RANGES: Range[] = [
  ['255.255.255.255', 32, 'a broadcast address'],
  ['0.0.0.0', 8, 'a "this network" address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'an IETF protocol address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a reserved (6to4 relay) address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];

const V6_RANGES: Range[] = [
  ['::', 128, 'an unspecified address'],
  ['::1', 128, 'a loopback address'],
  ['64:ff9b:1::', 48, 'a private (local NAT64) address'],
  ['100::', 64, 'a discard-only address'],
  ['2001::', 23, 'an IETF protocol address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['3fff::', 20, 'a documentation address'],
  ['fc00::', 7, 'a private (unique local) address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  ['ff00::', 8, 'a multicast address'],
];

/** IPv6 prefixes whose low 32 bits (or bits 16..47 for 6to4) carry an IPv4 address. */
const EMBEDS_V4: [prefix: string, bits: number, label: string][] = [
  ['::ffff:0:0', 96, 'IPv4-mapped'],
  ['64:ff9b::', 96, 'NAT64'],
  ['2002::', 16, '6to4'],
];

function v4ToBigInt(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function bigIntToV4(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 0xffn)).join('.');
}

/** Expands a valid IPv6 text (compressed, with zone id or a dotted IPv4 tail) into a 128-bit number. */
function v6ToBigInt(ip: string): bigint {
  let text = ip.split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4ToBigInt(dotted[1]);
    text = text.slice(0, dotted.index) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headParts = head ? head.split(':') : [];
  const tailParts = tail === undefined ? [] : tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array(8 - headParts.length - tailParts.length).fill('0');
  return [...headParts, ...zeros, ...tailParts].reduce((acc, part) => (acc << 16n) | BigInt(parseInt(part, 16)), 0n);
}

function inRange(value: bigint, width: bigint, prefix: bigint, bits: number): boolean {
  const shift = width - BigInt(bits);
  return value >> shift === prefix >> shift;
}

function classifyV4(ip: string): string | null {
  const value = v4ToBigInt(ip);
  const hit = V4_RANGES.find(([prefix, bits]) => inRange(value, 32n, v4ToBigInt(prefix), bits));
  return hit ? hit[2] : null;
}

function classifyV6(ip: string): string | null {
  const value = v6ToBigInt(ip);
  for (const [prefix, bits, label] of EMBEDS_V4) {
    if (!inRange(value, 128n, v6ToBigInt(prefix), bits)) continue;
    const v4 = bigIntToV4(label === '6to4' ? (value >> 80n) & 0xffffffffn : value & 0xffffffffn);
    const kind = classifyV4(v4);
    return kind ? `${kind} (${label} ${v4})` : null;
  }
  const hit = V6_RANGES.find(([prefix, bits]) => inRange(value, 128n, v6ToBigInt(prefix), bits));
  if (hit) return hit[2];
  return inRange(value, 128n, v6ToBigInt('2000::'), 3) ? null : 'a reserved address (not global unicast)';
}

/**
 * Why an IP address is not publicly routable (e.g. "a loopback address"), or null when it is.
 * Throws for text that is not an IP address.
 */
export function describeNonPublic(ip: string): string | null {
  const family = isIP(ip.split('%')[0]);
  if (family === 0) throw new Error(`not an IP address: ${ip}`);
  return family === 4 ? classifyV4(ip) : classifyV6(ip);
}

function refuse(ip: string, kind: string): SsrfError {
  return new SsrfError(`refused: ${ip} is ${kind} (private networks are not allowed)`);
}

/**
 * Resolves `host` (a name or an IP literal, IPv6 with or without brackets) and checks every
 * address: one private answer among public ones is enough to refuse, since the connection could
 * land on any of them. The caller must connect to the returned addresses, not resolve again.
 */
export async function resolveAndCheck(
  host: string,
  allowPrivate: boolean,
  lookup: LookupAll = dns.lookup,
): Promise<CheckedTarget> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(bare.split('%')[0]);
  const answers = literal ? [{ address: bare, family: literal }] : await lookup(bare, { all: true });
  if (answers.length === 0) throw new SsrfError(`DNS lookup of ${bare} returned no address`);

  const all = answers.map((a): ResolvedAddress => ({ address: a.address, family: isIPv4(a.address) ? 4 : 6 }));
  if (!allowPrivate) {
    for (const { address } of all) {
      const kind = describeNonPublic(address);
      if (kind) throw refuse(literal ? address : `${bare} (${address})`, kind);
    }
  }
  return { ...all[0], all };
}
