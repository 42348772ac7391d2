import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLAIMS_DIR, freePort, isPortFree } from './free-port.js';

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

  it('never hands one port to two processes before either binds it (400 each, at once)', async () => {
    // Without the claims, 800 unbound picks from ~20,000 ports collide almost surely (birthday bound).
    // Each process keeps its claims (stays alive, as a stack's setup does) until both have picked.
    const script = `import('./src/free-port.ts').then(async (m) => { const p = []; for (let i = 0; i < 400; i++) p.push(await m.freePort()); console.log(JSON.stringify(p)); process.stdin.resume(); })`;
    const children: ChildProcess[] = [];
    const run = () =>
      new Promise<number[]>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
          stdio: ['pipe', 'pipe', 'inherit'],
        });
        children.push(child);
        let out = '';
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(JSON.parse(out) as number[]);
        });
        child.on('error', reject);
      });
    const [a, b] = await Promise.all([run(), run()]).finally(() => children.forEach((c) => c.stdin!.end()));
    expect(new Set(a).size).toBe(400);
    expect(new Set(b).size).toBe(400);
    expect(a.filter((p) => b.includes(p))).toEqual([]);
  });

  it('skips a preferred port another live process claimed, and gives back one this process claimed', async () => {
    const mine = await freePort();
    expect(await freePort(mine)).toBe(mine);
    const other = await freePort();
    writeFileSync(path.join(CLAIMS_DIR, String(other)), '1');
    expect(await freePort(other)).not.toBe(other);
  });

  it("drops a process's claims when it exits (npm start run again after Ctrl-C gets its ports back)", async () => {
    const script = `import('./src/free-port.ts').then(async (m) => console.log(await m.freePort()))`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script]);
    const port = Number(stdout.trim());
    expect(existsSync(path.join(CLAIMS_DIR, String(port)))).toBe(false);
    expect(await freePort(port)).toBe(port);
  });
});
