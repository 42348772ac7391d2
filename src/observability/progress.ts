/**
 * A line every `everyMs` while a long first-run step works (a Go build, the heads' training), so a
 * newcomer's terminal shows what is happening, for how long so far, and how long it usually takes.
 * The timer is unref'd: it never keeps a process alive. Returns the function that stops it.
 */
export function reportProgress(
  log: (msg: string) => void,
  what: string,
  usually: string,
  everyMs = 30_000,
  now: () => number = Date.now,
): () => void {
  const started = now();
  const timer = setInterval(
    () => log(`still ${what}: ${Math.round((now() - started) / 1000)} s so far (usually ${usually})`),
    everyMs,
  );
  timer.unref();
  return () => clearInterval(timer);
}
