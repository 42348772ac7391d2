import type { WebhookRef as WebhookRefProto, WebhooksServiceServer } from '../../../gen/profiling/v1/webhooks.js';
import type { AppContext } from '../../app.js';
import { requireId } from '../../validation.js';
import * as webhooks from '../../webhooks/manage-webhooks.js';
import { recoverWebhook, resendDelivery } from '../../webhooks/redeliver.js';
import { endSecretOverlap, rotateSecret } from '../../webhooks/rotate-secret.js';
import { pipelineOf } from './message-refs.js';
import { deliveryStatusFromProto, deliveryToProto, eventsFromProto, webhookToProto } from './mappers.js';
import { unary } from './unary.js';

function ref(r: WebhookRefProto | undefined): webhooks.WebhookRef {
  return { ...pipelineOf(r), webhookId: requireId(r?.webhookId, 'ref.webhook_id') };
}

export function webhooksService(ctx: AppContext): WebhooksServiceServer {
  const { db, box } = ctx;
  return {
    createWebhook: unary(ctx, 'webhooks:write', async (caller, req) => {
      const input = { ...req, events: req.events.length ? eventsFromProto(req.events) : undefined };
      return { webhook: webhookToProto(await webhooks.createWebhook(db, box, caller, req, input, ctx.config.quotas)) };
    }),
    listWebhooks: unary(ctx, 'webhooks:read', async (caller, req) => ({
      webhooks: (await webhooks.listWebhooks(db, caller, req)).map(webhookToProto),
    })),
    getWebhook: unary(ctx, 'webhooks:read', async (caller, req) => ({
      webhook: webhookToProto(await webhooks.getWebhook(db, caller, ref(req.ref))),
    })),
    updateWebhook: unary(ctx, 'webhooks:write', async (caller, req) => {
      const input = {
        ...req,
        events: req.events ? eventsFromProto(req.events.values) : undefined,
        segments: req.segments?.values,
      };
      return { webhook: webhookToProto(await webhooks.updateWebhook(db, box, caller, ref(req.ref), input)) };
    }),
    deleteWebhook: unary(ctx, 'webhooks:write', async (caller, req) => {
      await webhooks.deleteWebhook(db, caller, ref(req.ref));
      return {};
    }),
    listDeliveries: unary(ctx, 'webhooks:read', async (caller, req) => {
      const input = { ...req, status: deliveryStatusFromProto(req.status) };
      const page = await webhooks.listDeliveries(db, caller, ref(req.ref), input);
      return { deliveries: page.deliveries.map(deliveryToProto), nextBefore: page.nextBefore };
    }),
    rotateWebhookSecret: unary(ctx, 'webhooks:write', async (caller, req) => {
      const r = await rotateSecret(db, box, caller, ref(req.ref), req, req.idempotencyKey);
      return {
        secret: r.secret,
        previousSecretExpiresAt: r.previous_secret_expires_at ?? undefined,
        webhook: webhookToProto(r.webhook),
      };
    }),
    endSecretOverlap: unary(ctx, 'webhooks:write', async (caller, req) => ({
      webhook: webhookToProto(await endSecretOverlap(db, caller, ref(req.ref))),
    })),
    recoverWebhook: unary(ctx, 'webhooks:write', async (caller, req) => {
      const r = await recoverWebhook(
        db,
        caller,
        ref(req.ref),
        { since: req.since },
        req.idempotencyKey,
        ctx.config.quotas,
      );
      return { events: r.events, alreadyRecovering: r.already_recovering };
    }),
    sendTestEvent: unary(ctx, 'webhooks:write', async (caller, req) => {
      const r = await webhooks.sendTestEvent(db, caller, ref(req.ref));
      return { eventId: r.event_id };
    }),
    resendDelivery: unary(ctx, 'webhooks:write', async (caller, req) => {
      const r = await resendDelivery(
        db,
        ctx.starters,
        caller,
        ref(req.ref),
        req.deliveryId,
        req.idempotencyKey,
        ctx.config.quotas,
        ctx.log,
      );
      return { workflowId: r.workflow_id };
    }),
  };
}
