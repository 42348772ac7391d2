import type { WebhookRef as WebhookRefProto, WebhooksServiceServer } from '../../../gen/profiling/v1/webhooks.js';
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
import { deliveryToProto, eventsFromProto, webhookToProto } from './mappers.js';
import { unary } from './unary.js';

function ref(r: WebhookRefProto | undefined): WebhookRef {
  return {
    projectId: requireId(r?.projectId, 'ref.project_id'),
    pipelineId: requireId(r?.pipelineId, 'ref.pipeline_id'),
    webhookId: requireId(r?.webhookId, 'ref.webhook_id'),
  };
}

export function webhooksService(ctx: AppContext): WebhooksServiceServer {
  const { db, box } = ctx;
  return {
    createWebhook: unary(ctx, async (caller, req) => {
      const input = { ...req, events: req.events.length ? eventsFromProto(req.events) : undefined };
      return { webhook: webhookToProto(await createWebhook(db, box, caller, req.projectId, req.pipelineId, input)) };
    }),
    listWebhooks: unary(ctx, async (caller, req) => ({
      webhooks: (await listWebhooks(db, caller, req.projectId, req.pipelineId)).map(webhookToProto),
    })),
    getWebhook: unary(ctx, async (caller, req) => ({
      webhook: webhookToProto(await getWebhook(db, caller, ref(req.ref))),
    })),
    updateWebhook: unary(ctx, async (caller, req) => {
      const input = { ...req, events: req.events ? eventsFromProto(req.events.values) : undefined };
      return { webhook: webhookToProto(await updateWebhook(db, box, caller, ref(req.ref), input)) };
    }),
    deleteWebhook: unary(ctx, async (caller, req) => {
      await deleteWebhook(db, caller, ref(req.ref));
      return {};
    }),
    listDeliveries: unary(ctx, async (caller, req) => ({
      deliveries: (await listDeliveries(db, caller, ref(req.ref), req)).map(deliveryToProto),
    })),
    resendDelivery: unary(ctx, async (caller, req) => {
      const r = await resendDelivery(db, ctx.starters, caller, ref(req.ref), req.deliveryId, req.idempotencyKey);
      return { workflowId: r.workflow_id };
    }),
  };
}
