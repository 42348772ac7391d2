import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

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
 * Where handed-out ports are claimed, for every process of the machine's user. By uid, not
 * os.userInfo(), which throws for a uid without a passwd entry (containers run as any uid).
 */
export const CLAIMS_DIR = path.join(os.tmpdir(), `profiling-service-ports-${process.getuid?.() ?? 'user'}`);
/** How long a claim holds: long enough for a child process to start and bind its port. */
const CLAIM_MS = 5 * 60_000;

/** This process's claims, dropped when it exits: `npm start` run again after Ctrl-C gets its preferred ports back. */
const mine = new Set<string>();
function released(file: string): void {
  if (mine.size === 0)
    process.once('exit', () => {
      for (const f of mine)
        try {
          if (readFileSync(f, 'utf8') === String(process.pid)) unlinkSync(f);
        } catch {
          // taken over or gone: not ours to drop
        }
    });
  mine.add(file);
}

/**
 * Claims a port that was just seen free, so that no other process (and no later call here) hands
 * it out before its owner binds it: a port is bound a while after it is handed out (a child
 * process binds it after its migrations), and test commands that run at once (.ci/run) each start
 * stacks of a dozen ports. An exclusive file per port, dropped once older than CLAIM_MS. Written
 * by hand: get-port and portfinder lock ports within one process only.
 */
function claim(port: number, opts: { ownOk?: boolean } = {}): boolean {
  const file = path.join(CLAIMS_DIR, String(port));
  try {
    mkdirSync(CLAIMS_DIR, { recursive: true });
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    released(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return true; // nowhere to claim: the check alone, as before
  }
  try {
    // A preferred port this process claimed before is its own (a database restarted on its port).
    if (opts.ownOk && readFileSync(file, 'utf8') === String(process.pid)) return true;
    if (Date.now() - statSync(file).mtimeMs < CLAIM_MS) return false;
    unlinkSync(file);
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    released(file);
    return true;
  } catch {
    return false; // another process took it over meanwhile
  }
}

/** Free and claimed by this call. */
async function freeAndClaimed(port: number, opts: { ownOk?: boolean } = {}): Promise<number | null> {
  const got = await tryListen(port);
  return got !== null && claim(got, opts) ? got : null;
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
    const got = await freeAndClaimed(preferred, { ownOk: true });
    if (got !== null) return got;
  }
  const range = handOutRange();
  for (let i = 0; range && i < 50; i++) {
    const port = range[0] + Math.floor(Math.random() * (range[1] - range[0] + 1));
    if ((await freeAndClaimed(port)) !== null) return port;
  }
  for (;;) {
    const got = await freeAndClaimed(0);
    if (got !== null) return got;
  }
}

/**
 * Four free ports for the real Temporal server's membership, which it stores as smallint: below
 * 32768 whatever the kernel's ephemeral range (the test stack's and the floor bench's servers).
 */
export async function membershipPorts(): Promise<[number, number, number, number]> {
  const ports: number[] = [];
  while (ports.length < 4) {
    const p = 20_000 + Math.floor(Math.random() * 12_000);
    if (!ports.includes(p) && (await freeAndClaimed(p)) !== null) ports.push(p);
  }
  return ports as [number, number, number, number];
}
