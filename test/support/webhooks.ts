import { expect } from 'vitest';
import { call, type Tenant } from './api.js';

/** The webhooks path of the tenant's pipeline. */
export const hooksPath = (t: Tenant) => `/projects/${t.projectId}/pipelines/${t.pipelineId}/webhooks`;

/** A webhook of the tenant's pipeline to `url` (201 expected); answers its id. */
export async function makeHook(t: Tenant, url: string, body: Record<string, unknown> = {}): Promise<number> {
  const res = await call('POST', hooksPath(t), { key: t.key, body: { url, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** Sends the webhook's test event (202 expected); answers its event id. */
export async function ping(t: Tenant, webhookId: number): Promise<number> {
  const res = await call('POST', `${hooksPath(t)}/${webhookId}/test`, { key: t.key });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.event_id;
}
