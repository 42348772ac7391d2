import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU seconds used so far by the api and worker processes, PostgreSQL and the Temporal server.
 * PostgreSQL runs a process per connection, and a backend that ends takes its CPU time with it
 * unless it is counted where it went: the postmaster's reaped-children time (cutime + cstime).
 */
export function cpuSeconds(pids: Record<string, number | null | undefined>): Record<string, number> {
  const tick = 100; // USER_HZ on Linux
  const stat = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const own = (pid: number) => {
    const f = stat(pid);
    return (Number(f[11]) + Number(f[12])) / tick;
  };
  const procs = execFileSync('ps', ['-eo', 'pid=,ppid=,comm='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 3)
    .map(([pid, ppid, comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm }));
  const safe = (fn: () => number) => {
    try {
      return fn();
    } catch {
      return 0; // the process ended between ps and /proc
    }
  };
  const postgres = procs.filter((p) => p.comm === 'postgres');
  const pgPids = new Set(postgres.map((p) => p.pid));
  const postmasters = postgres.filter((p) => !pgPids.has(p.ppid));
  const pgSeconds = postmasters.reduce((sum, pm) => {
    const reaped = safe(() => {
      const f = stat(pm.pid);
      return (Number(f[13]) + Number(f[14])) / tick;
    });
    const live = postgres.filter((p) => p.ppid === pm.pid).reduce((s, p) => s + safe(() => own(p.pid)), 0);
    return sum + safe(() => own(pm.pid)) + reaped + live;
  }, 0);
  // The dev server is the `temporal` CLI; the real server's binary is `temporal-server`.
  const temporal = procs
    .filter((p) => p.comm === 'temporal' || p.comm === 'temporal-server')
    .reduce((s, p) => s + safe(() => own(p.pid)), 0);
  const out: Record<string, number> = { postgres: pgSeconds, temporal };
  for (const [name, pid] of Object.entries(pids)) if (pid) out[name] = safe(() => own(pid));
  return out;
}

export function rssMb(pids: { api: number; worker: number }): { api: number; worker: number } {
  const rss = (pid: number) => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  };
  return { api: rss(pids.api), worker: rss(pids.worker) };
}
