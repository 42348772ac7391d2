import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDb } from '../../src/dev-hosting/embedded-postgres.js';
import { freePort } from '../../src/free-port.js';

/** A piece of infrastructure a test can stop and start again on the same port and data. */
export interface Restartable {
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * A database for one test run: a fresh database on DATABASE_URL's server (dropped at the end), or
 * an embedded PostgreSQL in `dataDir`, which the chaos suite can stop and start (`own`).
 */
export async function startTestDatabase(
  dataDir: string,
  opts: { own?: boolean } = {},
): Promise<{ url: string; postgres?: Restartable; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL && !opts.own) {
    const name = `profiling_test_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async stop() {
        const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  // A port of its own, not the embedded default (54329) that a developer's `npm start` prefers:
  // a run starts several test databases, some at once (test/support/stack-later.ts), and two
  // that both found 54329 free would both try it.
  let embedded: EmbeddedDb | undefined = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  const url = embedded.url;
  const postgres: Restartable = {
    async stop() {
      await embedded?.stop();
      embedded = undefined;
    },
    async start() {
      if (embedded) return;
      embedded = await startEmbeddedPostgres({ dataDir, port: Number(new URL(url).port) });
      if (embedded.url !== url) throw new Error(`PostgreSQL came back as ${embedded.url}, not ${url} (port taken?)`);
    },
  };
  return { url, postgres, stop: () => postgres.stop() };
}
