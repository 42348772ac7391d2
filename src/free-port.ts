import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Listens on `port` (0 = any) on loopback and returns the port it got, or null if it is taken. */
function tryListen(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => {
      const got = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(got));
    });
  });
}

export async function isPortFree(port: number): Promise<boolean> {
  return (await tryListen(port)) !== null;
}

/**
 * Where free ports are handed out: below the kernel's ephemeral range. A port is free when it is
 * handed out and bound by a child process a while later (after its migrations); one from the
 * ephemeral range can meanwhile become the local port of any outgoing connection (a cold CI run
 * lost an api's gRPC port that way: EADDRINUSE). Ports below the range are never taken so.
 */
function handOutRange(): [number, number] | undefined {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low > 12_000) return [10_000, low - 1];
  } catch {
    // not Linux: the OS's pick below
  }
  return undefined;
}

/** A free port: `preferred` when it is free, else one below the ephemeral range, else one the OS picks. */
export async function freePort(preferred = 0): Promise<number> {
  if (preferred) {
    const got = await tryListen(preferred);
    if (got !== null) return got;
  }
  const range = handOutRange();
  for (let i = 0; range && i < 50; i++) {
    const port = range[0] + Math.floor(Math.random() * (range[1] - range[0] + 1));
    if ((await tryListen(port)) !== null) return port;
  }
  return (await tryListen(0))!;
}

/**
 * Four free ports for the real Temporal server's membership, which it stores as smallint: below
 * 32768 whatever the kernel's ephemeral range (the test stack's and the floor bench's servers).
 */
export async function membershipPorts(): Promise<[number, number, number, number]> {
  const ports: number[] = [];
  while (ports.length < 4) {
    const p = 20_000 + Math.floor(Math.random() * 12_000);
    if (!ports.includes(p) && (await isPortFree(p))) ports.push(p);
  }
  return ports as [number, number, number, number];
}
