import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** CPU seconds used so far by the api and worker processes, and all postgres and temporal processes. */
export function cpuSeconds(pids: { api: number; worker: number }): Record<string, number> {
  const tick = 100; // USER_HZ on Linux
  const own = (pid: number) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / tick;
  };
  const byName = (name: string) =>
    execFileSync('ps', ['-eo', 'comm=,cputimes='], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim().startsWith(name))
      .reduce((s, l) => s + Number(l.trim().split(/\s+/).pop()), 0);
  return { api: own(pids.api), worker: own(pids.worker), postgres: byName('postgres'), temporal: byName('temporal') };
}

export function rssMb(pids: { api: number; worker: number }): { api: number; worker: number } {
  const rss = (pid: number) => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  };
  return { api: rss(pids.api), worker: rss(pids.worker) };
}
