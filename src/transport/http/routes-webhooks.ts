import { z } from 'zod';
import type { AppContext } from '../../app.js';
import { requireId } from '../../validation.js';
import * as webhooks from '../../webhooks/manage-webhooks.js';
import { recoverWebhook, resendDelivery } from '../../webhooks/redeliver.js';
import { endSecretOverlap, rotateSecret } from '../../webhooks/rotate-secret.js';
import { authenticated } from './authenticated.js';
import { pipelineRef } from './path-refs.js';
import {
  createWebhookBody,
  deliveriesQuery,
  read,
  recoverBody,
  rotateSecretBody,
  updateWebhookBody,
} from './inputs.js';
import type { Request, Router } from './router.js';
import { errors, idempotencyKey, routeDoc, type RouteDoc, type Tag } from './openapi/route-doc.js';
import * as out from './openapi/schemas.js';

const BASE = '/projects/:project_id/pipelines/:pipeline_id/webhooks';

function webhookRef(req: Request): webhooks.WebhookRef {
  return { ...pipelineRef(req), webhookId: requireId(req.params.webhook_id, 'webhook_id') };
}

/** A POST whose body may be left out: no body reads as `{}`. */
async function optionalJson(req: Request): Promise<unknown> {
  const declared = Number(req.header('content-length') ?? 0);
  if (declared === 0 && req.header('transfer-encoding') === undefined) return {};
  return req.json();
}

function nextLink(req: Request, nextBefore: number | undefined): Record<string, string> {
  if (nextBefore === undefined) return {};
  const params = new URLSearchParams(req.query);
  params.set('before', String(nextBefore));
  return { Link: `<${req.path}?${params.toString()}>; rel="next"` };
}

const doc = (tag: Tag) => (d: Omit<RouteDoc, 'tag' | 'auth'>) => routeDoc({ ...d, tag, auth: 'apiKey' });
const hookDoc = doc('Webhooks');
const opDoc = doc('Webhook operations');
export function addWebhookRoutes(router: Router, ctx: AppContext): void {
  const { db, box } = ctx;

  router.add(
    'POST',
    BASE,
    authenticated(ctx, 'webhooks:write', async (who, req) => ({
      status: 201,
      body: await webhooks.createWebhook(
        db,
        box,
        who,
        pipelineRef(req),
        read(createWebhookBody, await req.json()),
        ctx.config.quotas,
      ),
    })),
    hookDoc({
      operationId: 'createWebhook',
      summary: 'Create Webhook',
      body: createWebhookBody,
      responses: { 201: { description: 'The webhook (never its secret)', body: out.webhook }, ...errors(404, 422) },
    }),
  );
  router.add(
    'GET',
    BASE,
    authenticated(ctx, 'webhooks:read', async (who, req) => ({
      status: 200,
      body: await webhooks.listWebhooks(db, who, pipelineRef(req)),
    })),
    hookDoc({
      operationId: 'listWebhooks',
      summary: 'List Webhooks',
      responses: { 200: { description: 'The webhooks', body: z.array(out.webhook) }, ...errors(400, 404) },
    }),
  );
  router.add(
    'GET',
    `${BASE}/:webhook_id`,
    authenticated(ctx, 'webhooks:read', async (who, req) => ({
      status: 200,
      body: await webhooks.getWebhook(db, who, webhookRef(req)),
    })),
    hookDoc({
      operationId: 'getWebhook',
      summary: 'Get Webhook',
      responses: { 200: { description: 'The webhook', body: out.webhook }, ...errors(400, 404) },
    }),
  );
  router.add(
    'PUT',
    `${BASE}/:webhook_id`,
    authenticated(ctx, 'webhooks:write', async (who, req) => {
      return {
        status: 200,
        body: await webhooks.updateWebhook(db, box, who, webhookRef(req), read(updateWebhookBody, await req.json())),
      };
    }),
    hookDoc({
      operationId: 'updateWebhook',
      summary: 'Update Webhook (absent fields stay as they are; `secret: null` removes the secret)',
      body: updateWebhookBody,
      responses: { 200: { description: 'The updated webhook', body: out.webhook }, ...errors(404, 409) },
    }),
  );
  router.add(
    'DELETE',
    `${BASE}/:webhook_id`,
    authenticated(ctx, 'webhooks:write', async (who, req) => {
      await webhooks.deleteWebhook(db, who, webhookRef(req));
      return { status: 204 };
    }),
    hookDoc({
      operationId: 'deleteWebhook',
      summary: 'Delete Webhook',
      responses: { 204: { description: 'Deleted' }, ...errors(400, 404) },
    }),
  );
  router.add(
    'GET',
    `${BASE}/:webhook_id/deliveries`,
    authenticated(ctx, 'webhooks:read', async (who, req) => {
      const q = read(deliveriesQuery, req.query);
      const page = await webhooks.listDeliveries(db, who, webhookRef(req), q);
      // The body stays the documented array; the next page is in a Link header (RFC 8288), with
      // the same filters and limit and the cursor `before`.
      return { status: 200, body: page.deliveries, headers: nextLink(req, page.nextBefore) };
    }),
    hookDoc({
      operationId: 'listDeliveries',
      summary: 'List Deliveries, newest first',
      query: deliveriesQuery,
      responses: {
        200: {
          description: 'A page of delivery attempts',
          body: z.array(out.delivery),
          headers: z.object({
            Link: z.string().optional().meta({ description: 'RFC 8288 `rel="next"`: the next page (cursor `before`)' }),
          }),
        },
        ...errors(400, 404),
      },
    }),
  );
  router.add(
    'POST',
    `${BASE}/:webhook_id/rotate-secret`,
    authenticated(ctx, 'webhooks:write', async (who, req) => ({
      status: 200,
      body: await rotateSecret(
        db,
        box,
        who,
        webhookRef(req),
        read(rotateSecretBody, await optionalJson(req)),
        req.header('idempotency-key'),
      ),
    })),
    opDoc({
      operationId: 'rotateSecret',
      summary: 'Rotate the signing secret; the previous one keeps signing during the overlap',
      headers: idempotencyKey,
      body: rotateSecretBody,
      bodyOptional: true,
      responses: { 200: { description: 'The new secret', body: out.rotateAnswer }, ...errors(404, 409, 422) },
    }),
  );
  router.add(
    'POST',
    `${BASE}/:webhook_id/end-secret-overlap`,
    authenticated(ctx, 'webhooks:write', async (who, req) => ({
      status: 200,
      body: await endSecretOverlap(db, who, webhookRef(req)),
    })),
    opDoc({
      operationId: 'endSecretOverlap',
      summary: "End a rotation's overlap: only the new secret signs",
      responses: { 200: { description: 'The webhook', body: out.webhook }, ...errors(400, 404) },
    }),
  );
  router.add(
    'POST',
    `${BASE}/:webhook_id/recover`,
    authenticated(ctx, 'webhooks:write', async (who, req) => ({
      status: 202,
      body: await recoverWebhook(
        db,
        who,
        webhookRef(req),
        read(recoverBody, await req.json()),
        req.header('idempotency-key'),
        ctx.config.quotas,
      ),
    })),
    opDoc({
      operationId: 'recoverWebhook',
      summary: 'Re-send every event that finally failed since a time',
      headers: idempotencyKey,
      body: recoverBody,
      responses: { 202: { description: 'Queued', body: out.recoverAnswer }, ...errors(404, 422) },
    }),
  );
  router.add(
    'POST',
    `${BASE}/:webhook_id/test`,
    authenticated(ctx, 'webhooks:write', async (who, req) => ({
      status: 202,
      body: await webhooks.sendTestEvent(db, who, webhookRef(req)),
    })),
    opDoc({
      operationId: 'sendTestEvent',
      summary: 'Send a test event to the webhook',
      responses: {
        202: { description: 'Queued', body: z.object({ event_id: z.int() }) },
        ...errors(400, 404),
      },
    }),
  );
  router.add(
    'POST',
    `${BASE}/:webhook_id/deliveries/:delivery_id/resend`,
    authenticated(ctx, 'webhooks:write', async (who, req) => ({
      status: 202,
      body: await resendDelivery(
        db,
        ctx.starters,
        who,
        webhookRef(req),
        requireId(req.params.delivery_id, 'delivery_id'),
        req.header('idempotency-key'),
        ctx.config.quotas,
        ctx.log,
      ),
    })),
    opDoc({
      operationId: 'resendDelivery',
      summary: "Send a delivery's event again",
      headers: idempotencyKey,
      responses: {
        202: { description: 'Started', body: z.object({ workflow_id: z.string() }) },
        ...errors(400, 404, 422),
      },
    }),
  );
}
