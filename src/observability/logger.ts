import { currentRequestId } from './request-context.js';

/**
 * A small JSON-lines logger: one line per event, never secrets (callers pass ids, not bodies).
 * A line written while a request is handled names it (`request_id`), from the request's context.
 * On a terminal it writes the same fields as one readable line instead (LOG_FORMAT, `pretty`):
 * written here rather than with pino-pretty because this logger is not pino, and the whole of
 * pretty printing is the twenty lines of prettyLine.
 */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;
/** `auto`: pretty when stdout is a terminal, JSON lines otherwise (files, pipes, log shippers). */
export type LogFormat = 'auto' | 'json' | 'pretty';

/** ANSI SGR codes (open, close); the caller decides whether the stream takes colour (a TTY, no NO_COLOR). */
const ANSI = { dim: [2, 22], gray: [90, 39], cyan: [36, 39], yellow: [33, 39], red: [31, 39] } as const;
const COLOURS = { debug: 'gray', info: 'cyan', warn: 'yellow', error: 'red' } as const;

/** `12:03:04 INFO  msg  key=value …`: fields as compact JSON values, errors as their message. */
export function prettyLine(
  record: { time: string; level: Exclude<LogLevel, 'silent'>; msg: string } & Record<string, unknown>,
  colour: boolean,
): string {
  const { time, level, msg, ...fields } = record;
  const paint = (style: keyof typeof ANSI, text: string) =>
    colour ? `\u001b[${ANSI[style][0]}m${text}\u001b[${ANSI[style][1]}m` : text;
  const value = (v: unknown) =>
    v instanceof Error ? JSON.stringify(v.message) : typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v);
  const rest = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${paint('dim', `${k}=`)}${value(v)}`)
    .join(' ');
  const clock = time.slice(11, 19);
  return `${paint('dim', clock)} ${paint(COLOURS[level], level.toUpperCase().padEnd(5))} ${msg}${rest ? `  ${rest}` : ''}`;
}

export const resolveLogFormat = (format: LogFormat, tty = !!process.stdout.isTTY): 'json' | 'pretty' =>
  format === 'auto' ? (tty ? 'pretty' : 'json') : format;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(
  level: LogLevel = 'info',
  base: Record<string, unknown> = {},
  format: LogFormat = 'json',
): Logger {
  const threshold = LEVELS[level];
  const shape = resolveLogFormat(format);
  const write = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < threshold) return;
    const requestId = currentRequestId();
    const record = {
      time: new Date().toISOString(),
      level: lvl,
      msg,
      ...(requestId && { request_id: requestId }),
      ...base,
      ...fields,
    };
    const stream = lvl === 'error' || lvl === 'warn' ? process.stderr : process.stdout;
    // Node's own answer for a terminal: it honours NO_COLOR, FORCE_COLOR and TERM=dumb.
    const colour = !!stream.isTTY && (stream as NodeJS.WriteStream).hasColors?.() === true;
    const line = shape === 'pretty' ? prettyLine(record, colour) : JSON.stringify(record, errorReplacer);
    stream.write(line + '\n');
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, format),
  };
}

function errorReplacer(_key: string, value: unknown) {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}
