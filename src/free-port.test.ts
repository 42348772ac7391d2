import { readFileSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, isPortFree } from './free-port.js';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('freePort', () => {
  it('hands out free ports below the ephemeral range, where outgoing connections never take them', async () => {
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralLow);
      expect(await isPortFree(port)).toBe(true);
    }
  });

  it('gives the preferred port when it is free, another one when it is taken', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const other = await freePort(port);
      expect(other).not.toBe(port);
      expect(await isPortFree(other)).toBe(true);
    } finally {
      await new Promise((r) => taken.close(r));
    }
    expect(await freePort(port)).toBe(port);
  });
});
