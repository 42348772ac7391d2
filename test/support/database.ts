import pg from 'pg';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** The integration tier's migrated database (test/global-setup-db.ts). */
export function testDatabaseUrl(): string {
  return inject('databaseUrl');
}

/** Runs one statement on the integration tier's server, as its owner (CREATE / DROP DATABASE). */
async function onServer(statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/**
 * A new empty database of a test file's own on the integration tier's server (for what the shared
 * one cannot show: migrations from empty, the installation row); `drop` removes it.
 */
export async function ownDatabase(prefix: string): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  await onServer(`CREATE DATABASE ${name}`);
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
