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
