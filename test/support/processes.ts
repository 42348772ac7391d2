import { readdirSync, readFileSync } from 'node:fs';

/** The pids of live processes whose process group is `pgid`, or whose command line contains `text`. */
export function processes(match: { pgid?: number; text?: string }): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The fields after the command's name (which may hold spaces): state, ppid, pgrp.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if ((match.pgid && Number(pgrp) === match.pgid) || (match.text && cmdline.includes(match.text)))
        found.push(Number(name));
    } catch {
      // Ended while we read it.
    }
  }
  return found;
}
