import type { Db } from '../db/knex.js';
import { invalid } from '../errors.js';
import { isStorableText } from '../validation.js';
import { generateApiKey, hashApiKey } from './api-keys.js';
import { recordAdminKeyEvent } from './key-events.js';
import { SCOPES } from './scopes.js';

export interface NewTenant {
  tenant_id: number;
  api_key: string;
}

export async function createTenant(db: Db, input: { name: string }): Promise<NewTenant> {
  const name = input.name.trim();
  if (!name || name.length > 200 || !isStorableText(name)) {
    throw invalid('name', 'name must be a string of 1 to 200 characters, without NUL or unpaired surrogates');
  }
  const apiKey = generateApiKey();
  return db.transaction(async (trx) => {
    const [tenant] = await trx('tenants').insert({ name }).returning('id');
    // The tenant's first key holds every scope on every project: the one its own keys are made from.
    const [key] = await trx('api_keys')
      .insert({
        tenant_id: tenant.id,
        key_hash: hashApiKey(apiKey),
        prefix: apiKey.slice(0, 8),
        name: 'first key',
        scopes: SCOPES,
        created_by: 'admin',
      })
      .returning(['uid', 'prefix', 'name']);
    await recordAdminKeyEvent(trx, tenant.id, 'created', key);
    return { tenant_id: tenant.id as number, api_key: apiKey };
  });
}
