import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { processAlive } from '../process-alive.js';

/**
 * On Linux the child is started through util-linux's `setpriv --pdeathsig SIGKILL`, which sets
 * PR_SET_PDEATHSIG and execs the program (same pid): the kernel kills it when this process dies,
 * even by SIGKILL or out of memory, where no 'exit' handler runs. Without setpriv the pidfile still
 * lets the next start reap it.
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => process.platform === 'linux' && existsSync(p));

/**
 * A server left running by an earlier run that died without stopping it (SIGKILL, out of memory)
 * holds the ports. The pidfile names it; it is stopped only if that pid still runs a command line
 * that `ours` recognises (a recycled pid is left alone).
 */
export async function reapStale(
  pidFile: string,
  ours: (cmdline: string) => boolean,
  log?: (msg: string) => void,
): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      // Not Linux, or it ended meanwhile: nothing we can prove is ours.
    }
    if (ours(cmdline)) {
      log?.(`stopping a Temporal server left running by an earlier run (pid ${pid})`);
      process.kill(pid, 'SIGTERM');
      for (let i = 0; i < 50 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
      if (processAlive(pid)) process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 50 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    }
  }
  rmSync(pidFile, { force: true });
}

export interface OwnedProcess {
  child: ChildProcess;
  /** The last 4,000 characters it wrote to stderr (for error messages). */
  stderrTail(): string;
  stop(): Promise<void>;
}

/**
 * Starts a server program that dies with us: stopped on stop() (SIGTERM, SIGKILL after 10 s),
 * killed on process exit, killed by the kernel if we crash (setpriv above), and named in a pidfile
 * so the next start can reap a survivor.
 */
export function spawnOwned(program: string, args: string[], pidFile: string, cwd?: string): OwnedProcess {
  const stdio: ['ignore', 'ignore', 'pipe'] = ['ignore', 'ignore', 'pipe'];
  const child = SETPRIV
    ? spawn(SETPRIV, ['--pdeathsig', 'SIGKILL', '--', program, ...args], { stdio, cwd })
    : spawn(program, args, { stdio, cwd });
  if (child.pid) writeFileSync(pidFile, String(child.pid));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4_000);
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      rmSync(pidFile, { force: true });
      resolve();
    }),
  );
  return {
    child,
    stderrTail: () => stderr,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
