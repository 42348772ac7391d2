import { describe, expect, it } from 'vitest';
import { describeNonPublic, resolveAndCheck, SsrfError, type LookupAll } from './ssrf.js';

describe('describeNonPublic', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'this network'],
    ['0.1.2.3', 'this network'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.8', 'IETF protocol'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:127.0.0.1', 'loopback address (IPv4-mapped 127.0.0.1)'],
    ['::ffff:7f00:1', 'loopback address (IPv4-mapped 127.0.0.1)'],
    ['::ffff:169.254.169.254', 'link-local address (IPv4-mapped 169.254.169.254)'],
    ['64:ff9b::a00:1', 'private address (NAT64 10.0.0.1)'],
    ['64:ff9b::127.0.0.1', 'loopback address (NAT64 127.0.0.1)'],
    ['2002:c0a8:101::1', 'private address (6to4 192.168.1.1)'],
    ['::127.0.0.1', 'not global unicast'],
  ])('refuses %s (%s)', (ip, kind) => {
    expect(describeNonPublic(ip)).toContain(kind);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255', // just below 172.16/12
    '172.32.0.1', // just above it
    '100.63.255.255', // just below 100.64/10
    '100.128.0.1', // just above it
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255', // last address below multicast
    '2606:4700:4700::1111',
    '2a00:1450:4001:81b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows the public address %s', (ip) => {
    expect(describeNonPublic(ip)).toBeNull();
  });

  it('throws for text that is not an IP address', () => {
    expect(() => describeNonPublic('example.com')).toThrow(/not an IP address/);
  });
});

/** A fake resolver that records the names it was asked for. */
function fakeLookup(answers: Record<string, string[]>): LookupAll & { asked: string[] } {
  const asked: string[] = [];
  const lookup = async (host: string) => {
    asked.push(host);
    const addresses = answers[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { asked });
}

describe('resolveAndCheck', () => {
  it('returns the resolved public address and all answers', async () => {
    const lookup = fakeLookup({ 'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'] });
    const target = await resolveAndCheck('hooks.example.com', false, lookup);
    expect(target).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(target.all).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
  });

  it('refuses a name if ANY of its addresses is private, with a message naming it', async () => {
    const lookup = fakeLookup({ 'mixed.example.com': ['93.184.216.34', '10.1.2.3'] });
    const err = await resolveAndCheck('mixed.example.com', false, lookup).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SsrfError);
    expect((err as Error).message).toBe(
      'refused: mixed.example.com (10.1.2.3) is a private address (private networks are not allowed)',
    );
  });

  it('refuses a name resolving to loopback, such as localhost (real resolver)', async () => {
    await expect(resolveAndCheck('localhost', false)).rejects.toThrow(
      /localhost \((127\.0\.0\.1|::1)\) is a loopback address/,
    );
  });

  it('checks IP literals directly, without asking DNS, brackets or not', async () => {
    const lookup = fakeLookup({});
    await expect(resolveAndCheck('127.0.0.1', false, lookup)).rejects.toThrow(
      'refused: 127.0.0.1 is a loopback address (private networks are not allowed)',
    );
    await expect(resolveAndCheck('[::1]', false, lookup)).rejects.toThrow('refused: ::1 is a loopback address');
    await expect(resolveAndCheck('[::ffff:7f00:1]', false, lookup)).rejects.toThrow(/IPv4-mapped 127\.0\.0\.1/);
    await expect(resolveAndCheck('8.8.8.8', false, lookup)).resolves.toMatchObject({ address: '8.8.8.8', family: 4 });
    await expect(resolveAndCheck('[2606:4700:4700::1111]', false, lookup)).resolves.toMatchObject({ family: 6 });
    expect(lookup.asked).toEqual([]);
  });

  it('refuses the decimal, hex and short IPv4 forms, which URL parsing normalises to dotted form', async () => {
    for (const raw of ['https://2130706433/', 'https://0x7f000001/', 'https://127.1/', 'https://0177.0.0.1/']) {
      const host = new URL(raw).hostname;
      expect(host).toBe('127.0.0.1');
      await expect(resolveAndCheck(host, false, fakeLookup({}))).rejects.toThrow(/127\.0\.0\.1 is a loopback address/);
    }
    expect(new URL('https://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
  });

  it('allows private addresses when the operator allows private networks', async () => {
    const lookup = fakeLookup({ 'internal.test': ['10.0.0.5'] });
    await expect(resolveAndCheck('internal.test', true, lookup)).resolves.toMatchObject({ address: '10.0.0.5' });
    await expect(resolveAndCheck('127.0.0.1', true, lookup)).resolves.toMatchObject({ address: '127.0.0.1' });
  });

  it('passes DNS failures through and treats an empty answer as an error', async () => {
    await expect(resolveAndCheck('nowhere.test', false, fakeLookup({}))).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolveAndCheck('empty.test', false, fakeLookup({ 'empty.test': [] }))).rejects.toThrow(/no address/);
  });
});
