import type { AppContext } from '../../app.js';
import { requireId } from '../../validation.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  resendDelivery,
  updateWebhook,
  type WebhookRef,
} from '../../webhooks/manage-webhooks.js';
import { authenticated } from './authenticated.js';
import { createWebhookBody, limitQuery, read, updateWebhookBody } from './inputs.js';
import type { Request, Router } from './router.js';

const BASE = '/projects/:project_id/pipelines/:pipeline_id/webhooks';

function pipelineIds(req: Request) {
  return [requireId(req.params.project_id, 'project_id'), requireId(req.params.pipeline_id, 'pipeline_id')] as const;
}

function webhookRef(req: Request): WebhookRef {
  const [projectId, pipelineId] = pipelineIds(req);
  return { projectId, pipelineId, webhookId: requireId(req.params.webhook_id, 'webhook_id') };
}

export function addWebhookRoutes(router: Router, ctx: AppContext): void {
  const { db, box } = ctx;

  router.add(
    'POST',
    BASE,
    authenticated(ctx, async (who, req) => {
      const [projectId, pipelineId] = pipelineIds(req);
      return {
        status: 201,
        body: await createWebhook(db, box, who, projectId, pipelineId, read(createWebhookBody, await req.json())),
      };
    }),
  );
  router.add(
    'GET',
    BASE,
    authenticated(ctx, async (who, req) => {
      const [projectId, pipelineId] = pipelineIds(req);
      return { status: 200, body: await listWebhooks(db, who, projectId, pipelineId) };
    }),
  );
  router.add(
    'GET',
    `${BASE}/:webhook_id`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await getWebhook(db, who, webhookRef(req)),
    })),
  );
  router.add(
    'PUT',
    `${BASE}/:webhook_id`,
    authenticated(ctx, async (who, req) => {
      return {
        status: 200,
        body: await updateWebhook(db, box, who, webhookRef(req), read(updateWebhookBody, await req.json())),
      };
    }),
  );
  router.add(
    'DELETE',
    `${BASE}/:webhook_id`,
    authenticated(ctx, async (who, req) => {
      await deleteWebhook(db, who, webhookRef(req));
      return { status: 204 };
    }),
  );
  router.add(
    'GET',
    `${BASE}/:webhook_id/deliveries`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await listDeliveries(db, who, webhookRef(req), read(limitQuery, req.query)),
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
      ),
    })),
  );
}
