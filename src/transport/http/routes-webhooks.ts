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

export function addWebhookRoutes(router: Router, ctx: AppContext): void {
  const { db, box } = ctx;

  router.add(
    'POST',
    BASE,
    authenticated(ctx, async (who, req) => ({
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
  );
  router.add(
    'GET',
    BASE,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await webhooks.listWebhooks(db, who, pipelineRef(req)),
    })),
  );
  router.add(
    'GET',
    `${BASE}/:webhook_id`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await webhooks.getWebhook(db, who, webhookRef(req)),
    })),
  );
  router.add(
    'PUT',
    `${BASE}/:webhook_id`,
    authenticated(ctx, async (who, req) => {
      return {
        status: 200,
        body: await webhooks.updateWebhook(db, box, who, webhookRef(req), read(updateWebhookBody, await req.json())),
      };
    }),
  );
  router.add(
    'DELETE',
    `${BASE}/:webhook_id`,
    authenticated(ctx, async (who, req) => {
      await webhooks.deleteWebhook(db, who, webhookRef(req));
      return { status: 204 };
    }),
  );
  router.add(
    'GET',
    `${BASE}/:webhook_id/deliveries`,
    authenticated(ctx, async (who, req) => {
      const q = read(deliveriesQuery, req.query);
      const page = await webhooks.listDeliveries(db, who, webhookRef(req), q);
      // The body stays the documented array; the next page is in a Link header (RFC 8288), with
      // the same filters and limit and the cursor `before`.
      return { status: 200, body: page.deliveries, headers: nextLink(req, page.nextBefore) };
    }),
  );
  router.add(
    'POST',
    `${BASE}/:webhook_id/rotate-secret`,
    authenticated(ctx, async (who, req) => ({
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
  );
  router.add(
    'POST',
    `${BASE}/:webhook_id/end-secret-overlap`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await endSecretOverlap(db, who, webhookRef(req)),
    })),
  );
  router.add(
    'POST',
    `${BASE}/:webhook_id/recover`,
    authenticated(ctx, async (who, req) => ({
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
  );
  router.add(
    'POST',
    `${BASE}/:webhook_id/test`,
    authenticated(ctx, async (who, req) => ({
      status: 202,
      body: await webhooks.sendTestEvent(db, who, webhookRef(req)),
    })),
  );
  router.add(
    'POST',
    `${BASE}/:webhook_id/deliveries/:delivery_id/resend`,
    authenticated(ctx, async (who, req) => ({
      status: 202,
      body: await resendDelivery(
        db,
        ctx.starters,
        who,
        webhookRef(req),
        requireId(req.params.delivery_id, 'delivery_id'),
        req.header('idempotency-key'),
        ctx.config.quotas,
      ),
    })),
  );
}
