import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant, waitFor, withDb, type Tenant } from '../support/api.js';
import type { ServiceProcess } from '../support/service-process.js';
import { startStackApi } from '../support/stack-api.js';

/** The tenant's in-flight places (TENANT_REQUESTS_IN_FLIGHT's default). */
const PLACES = 8;
/** The big user: this many messages and as many pending items, of 10,000 characters each (50 MB). */
const BIG_ROWS = 2_500;
const TEXT_CHARS = 10_000;
/** The other user: more pending items than the 10,000 the export used to cut at. */
const MANY_PENDING = 10_050;
/** What one open export may add to the api's memory (docs/privacy.md: a page of about 1 MB). */
const MB_PER_OPEN_EXPORT = 20;
/** Short so the test sees the cut; the default is 30 s (HTTP_SEND_TIMEOUT_MS). */
const SEND_TIMEOUT_MS = 10_000;

/**
 * An open export holds its tenant's place and about one page of memory until its last byte
 * (docs/privacy.md, Export): measured on an api process of its own (the shared one serves other
 * files), with a 50 MB export whose clients stop reading after the head.
 */
describe('export bounds', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'export-bounds-'));
  const logFile = path.join(dir, 'api.log'); // startStackApi's log of the process named 'api'
  let api: ServiceProcess;
  let base: string;
  let t: Tenant;
  const big = 'export-big';
  const many = 'export-many';

  beforeAll(async () => {
    ({ proc: api, base } = await startStackApi(dir, 'api', { HTTP_SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS) }));
    t = await newTenant('export-bounds');
    // Rows written straight to the tables (the analysis would take an hour for these): a finished
    // batch, so no worker picks its items up, whose items are not folded into messages (pending).
    await withDb(async (db) => {
      const source = async (items: number) =>
        (
          await db.query(
            `INSERT INTO sources (project_id, label, user_count, workflow_started_at, admitted_at, completed_at, processed, failed)
             VALUES ($1, 'api', $2, now(), now(), now(), 0, $2) RETURNING id`,
            [t.projectId, items],
          )
        ).rows[0].id as number;
      const user = (
        await db.query(`INSERT INTO users (project_id, user_id, source_label) VALUES ($1, $2, 'api') RETURNING id`, [
          t.projectId,
          big,
        ])
      ).rows[0].id as number;
      const bigSource = await source(BIG_ROWS * 2);
      await db.query(
        `INSERT INTO messages (user_pk, source_id, item_idx, written_at, source_label, text, sentiment, topics, intentions)
         SELECT $1, $2, g, timestamptz '2024-01-01' + g * interval '1 minute', 'api',
                rpad('message-' || g || ' ', $4, 'x'), 0, '{}', '{}'
           FROM generate_series(0, $3 - 1) g`,
        [user, bigSource, BIG_ROWS, TEXT_CHARS],
      );
      await db.query(
        `INSERT INTO source_items (source_id, idx, user_id, text, written_at, error)
         SELECT $1, $3 + g, $2, rpad('pending-' || g || ' ', $4, 'y'), now(), 'not analysed'
           FROM generate_series(0, $3 - 1) g`,
        [bigSource, big, BIG_ROWS, TEXT_CHARS],
      );
      await db.query(
        `INSERT INTO source_items (source_id, idx, user_id, text, written_at)
         SELECT $1, g, $2, 'item-' || g, now() FROM generate_series(0, $3 - 1) g`,
        [await source(MANY_PENDING), many, MANY_PENDING],
      );
    });
  });

  afterAll(async () => {
    if (api && api.proc.exitCode === null && api.proc.signalCode === null) api.proc.kill('SIGTERM');
    await api?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  const exportPath = (user: string) => `/api/v1/profiles/${user}/export?project_id=${t.projectId}`;

  /** An export whose client reads the head and then stops reading (the response paused). */
  function openStalled(user: string, requestId?: string) {
    const headers = { 'X-API-Key': t.key, ...(requestId && { 'X-Request-Id': requestId }) };
    return new Promise<{ res: http.IncomingMessage; req: http.ClientRequest }>((resolve, reject) => {
      const req = http.request(`${base}${exportPath(user)}`, { agent: false, headers }, (res) => {
        res.pause();
        resolve({ res, req });
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** Reads a paused response to its end: its bytes, and whether it ended complete or was cut. */
  function readToEnd(res: http.IncomingMessage) {
    return new Promise<{ text: string; complete: boolean }>((resolve) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => undefined);
      res.on('close', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), complete: res.complete }));
      res.resume();
    });
  }

  const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${api.proc.pid}/status`, 'utf8'))![1]) / 1024;

  const logLines = (): Record<string, any>[] =>
    readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));

  it(`holds a place and about a page of memory per open export until its client is cut; past ${PLACES} open, 429`, async () => {
    // Warm: the routes' first answers load what every later one shares.
    const warm = await fetch(`${base}${exportPath(many)}`, { headers: { 'X-API-Key': t.key } });
    expect(warm.status).toBe(200);
    await warm.text();
    const before = rssMb();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 25);
    try {
      const open = [];
      for (let i = 0; i < PLACES; i++) open.push(await openStalled(big));
      // The two past the places wait for one (2 s), together, then are refused.
      open.push(...(await Promise.all([openStalled(big), openStalled(big)])));
      const statuses = open.map((o) => o.res.statusCode);
      const refused = open.filter((o) => o.res.statusCode === 429);
      const held = open.filter((o) => o.res.statusCode === 200);
      // The places are held by the open exports: another tenant is served meanwhile, this one is not.
      const other = await newTenant('export-bounds-other');
      expect((await fetch(`${base}/api/v1/projects`, { headers: { 'X-API-Key': other.key } })).status).toBe(200);
      expect(statuses).toEqual([...Array(PLACES).fill(200), 429, 429]);
      for (const r of refused)
        expect(JSON.parse((await readToEnd(r.res)).text)).toMatchObject({ error: { code: 'rate_limited' } });

      // Cut after the send timeout: every stalled client, each logged at info.
      await waitFor(
        'the stalled exports to be cut',
        async () =>
          logLines().filter((l) => l.msg === 'streamed answer cut: the client took nothing for the send timeout')
            .length >= PLACES,
        SEND_TIMEOUT_MS * 4,
      );
      clearInterval(sampler);
      const grown = peak - before;
      console.log(
        `${held.length} stalled exports of a ${(BIG_ROWS * 2 * TEXT_CHARS) / 1e6} MB document: api RSS ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at its highest (${(grown / held.length).toFixed(1)} MB each)`,
      );
      expect(grown).toBeLessThan(MB_PER_OPEN_EXPORT * PLACES);
      // Each client, reading again, finds the connection closed before the document's end.
      for (const o of held) {
        const got = await readToEnd(o.res);
        expect(got.complete).toBe(false);
        expect(got.text.length).toBeLessThan(BIG_ROWS * 2 * TEXT_CHARS);
      }
    } finally {
      clearInterval(sampler);
    }
  });

  it('gives the places back: the whole 50 MB document then reads to its end, every message and pending item', async () => {
    const res = await fetch(`${base}${exportPath(big)}`, { headers: { 'X-API-Key': t.key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBeNull();
    const doc = JSON.parse(await res.text());
    expect(doc).toMatchObject({ user_id: big, project_id: t.projectId, profile: { user_id: big } });
    expect(doc.messages).toHaveLength(BIG_ROWS);
    expect(doc.messages.map((m: { text: string }) => Number(/^message-(\d+) /.exec(m.text)![1]))).toEqual(
      Array.from({ length: BIG_ROWS }, (_, i) => i),
    );
    expect(doc.messages.every((m: { text: string }) => m.text.length === TEXT_CHARS)).toBe(true);
    expect(doc.pending_items).toHaveLength(BIG_ROWS);
    expect(doc.pending_items[0]).toMatchObject({ index: BIG_ROWS, state: 'failed' });
    expect(doc.pending_items.every((i: { text: string }) => i.text.length === TEXT_CHARS)).toBe(true);
  });

  it(`exports every pending item of a user with ${MANY_PENDING.toLocaleString('en')}, never cut`, async () => {
    const res = await fetch(`${base}${exportPath(many)}`, { headers: { 'X-API-Key': t.key } });
    expect(res.status).toBe(200);
    const doc = JSON.parse(await res.text());
    expect(doc.profile).toBeNull();
    expect(doc.pending_items.map((i: { text: string }) => i.text)).toEqual(
      Array.from({ length: MANY_PENDING }, (_, g) => `item-${g}`),
    );
  });

  it('answers HEAD from its checks alone: 200 or 404 and the head, while the rows are locked away', async () => {
    await withDb(async (db) => {
      await db.query('BEGIN');
      try {
        // Nothing can read these rows until the transaction ends: an answer that needs them waits.
        await db.query('LOCK TABLE messages, source_items, events, segment_memberships IN ACCESS EXCLUSIVE MODE');
        const head = await fetch(`${base}${exportPath(big)}`, {
          method: 'HEAD',
          headers: { 'X-API-Key': t.key, 'X-Request-Id': 'export-head-1' },
        });
        expect(head.status).toBe(200);
        expect(head.headers.get('content-type')).toMatch(/^application\/json/);
        expect(head.headers.get('content-disposition')).toMatch(/attachment/);
        expect(await head.text()).toBe('');
        // Its access line is written when the answer has ended, rows locked or not.
        await waitFor(
          'the HEAD to end',
          async () => logLines().some((l) => l.msg === 'request' && l.request_id === 'export-head-1'),
          10_000,
        );
      } finally {
        await db.query('ROLLBACK');
      }
    });
    const missing = await fetch(`${base}${exportPath('nobody-at-all')}`, {
      method: 'HEAD',
      headers: { 'X-API-Key': t.key },
    });
    expect(missing.status).toBe(404);
  });

  it('logs a client that leaves mid-export at info, and nothing as an error', async () => {
    const { res, req } = await openStalled(big, 'export-left');
    expect(res.statusCode).toBe(200);
    await new Promise<void>((resolve) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
      res.on('error', () => undefined);
      res.resume();
    });
    const lines = await waitFor('the export to end (its access line)', async () => {
      const all = logLines();
      return all.some((l) => l.msg === 'request' && l.request_id === 'export-left') && all;
    });
    expect(lines.filter((l) => l.level === 'error' || l.msg === 'unhandled error')).toEqual([]);
    expect(lines.filter((l) => l.request_id === 'export-left').map((l) => [l.level, l.msg])).toEqual([
      ['info', 'streamed answer ended by the client'],
      ['info', 'request'],
    ]);
  });
});
