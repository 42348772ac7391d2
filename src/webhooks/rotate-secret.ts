import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Caller } from '../auth/api-keys.js';
import type { Db } from '../db/knex.js';
import { AppError, notFound } from '../errors.js';
import { idempotencyScope, lockIdempotencyKey, rememberAnswer } from '../idempotency.js';
import { optionalInt } from '../validation.js';
import {
  overlapRunning,
  requireWebhook,
  validateSecret,
  WEBHOOK_COLUMNS,
  webhookView,
  type SecretSealer,
  type WebhookRef,
  type WebhookView,
} from './manage-webhooks.js';

/**
 * Secret rotation with an overlap, so that no receiver rejects a delivery while it changes secrets:
 * - `webhook-signature` (Standard Webhooks) carries both signatures during the overlap, new first;
 * - `X-Webhook-Signature`, which holds one, stays on the PREVIOUS secret until the overlap ends:
 *   a receiver built from the interface document keeps verifying with the secret it has, adds the
 *   new one, then ends the overlap (`endSecretOverlap`) or lets it run out (docs/api.md,
 *   "Webhook operations");
 * - one rotation at a time: a second one during an overlap would have to drop a secret whose end
 *   the first answer promised, so it is refused (409) until the overlap ends or is ended.
 */

export interface RotateSecretInput {
  /** The new secret (8..256 characters); absent: generated, `whsec_` + base64 of 32 random bytes. */
  secret?: string;
  /** How long the previous secret keeps signing too (0..604800 s, default 86400); 0 = ends now. */
  overlapSeconds?: number;
}

/** The webhook's row, held until the transaction ends, with the end of a running overlap. */
async function holdWebhook(trx: Knex.Transaction, webhookId: number) {
  const row = await trx('webhooks')
    .where({ id: webhookId })
    .forUpdate()
    .first(
      'secret_sealed',
      trx.raw('CASE WHEN previous_secret_expires_at > now() THEN previous_secret_expires_at END AS overlap_ends_at'),
    );
  if (!row) throw notFound('webhook'); // deleted since it was read
  return row as { secret_sealed: string | null; overlap_ends_at: Date | null };
}

export interface RotateAnswer {
  secret: string;
  previous_secret_expires_at: Date | null;
  webhook: WebhookView;
}

/**
 * Answers the new secret: the only answer that ever carries one. Under an `Idempotency-Key` a
 * retried request (the answer lost to a crash or a timeout) gets the same answer again and rotates
 * nothing; the stored answer keeps the secret sealed, as the webhook row does. Without a key a lost
 * answer cannot be asked again, and the retry meets the overlap (409).
 */
export async function rotateSecret(
  db: Db,
  box: SecretSealer,
  caller: Caller,
  ref: WebhookRef,
  input: RotateSecretInput,
  idempotencyKey?: string,
): Promise<RotateAnswer> {
  const secret =
    input.secret === undefined ? `whsec_${randomBytes(32).toString('base64')}` : validateSecret(input.secret);
  const overlapSeconds = optionalInt(input.overlapSeconds, 'overlap_seconds', 0, 604_800) ?? 86_400;
  // The request as hashed for the key: whether a secret was given, not the secret itself.
  const scope = idempotencyScope(caller, idempotencyKey, {
    operation: 'rotate_secret',
    ...ref,
    secretGiven: input.secret !== undefined,
    overlapSeconds,
  });
  await requireWebhook(db, caller, ref);
  return db.transaction(async (trx) => {
    if (scope) {
      const previous = (await lockIdempotencyKey(trx, scope, new Date())) as StoredRotateAnswer | undefined;
      if (previous) {
        const answered = box.open(previous.secret_sealed);
        // The request hash holds whether a secret was given, not the secret (a hash of it in the
        // database would be a fingerprint of it): a given secret is compared here instead.
        if (input.secret !== undefined && input.secret !== answered) {
          throw new AppError(
            'idempotency_key_reused',
            'this Idempotency-Key was already used for a different request in the last 24 hours; use a new key for a new request',
            'Idempotency-Key',
          );
        }
        return {
          secret: answered,
          previous_secret_expires_at: previous.previous_secret_expires_at
            ? new Date(previous.previous_secret_expires_at)
            : null,
          webhook: webhookView({
            ...previous.webhook,
            previous_secret_expires_at: previous.webhook.previous_secret_expires_at
              ? new Date(previous.webhook.previous_secret_expires_at)
              : null,
            created_at: new Date(previous.webhook.created_at),
            updated_at: new Date(previous.webhook.updated_at),
          }),
        };
      }
    }
    const current = await holdWebhook(trx, ref.webhookId);
    if (current.overlap_ends_at) throw overlapRunning(current.overlap_ends_at);
    const keepPrevious = overlapSeconds > 0 && current.secret_sealed !== null;
    const [row] = await trx('webhooks')
      .where({ id: ref.webhookId })
      .update({
        secret_sealed: box.seal(secret),
        previous_secret_sealed: keepPrevious ? current.secret_sealed : null,
        previous_secret_expires_at: keepPrevious ? trx.raw(`now() + make_interval(secs => ?)`, [overlapSeconds]) : null,
        updated_at: trx.fn.now(),
      })
      .returning(WEBHOOK_COLUMNS);
    const webhook = webhookView(row);
    const answer = { secret, previous_secret_expires_at: webhook.previous_secret_expires_at, webhook };
    if (scope) {
      const stored: StoredRotateAnswer = {
        secret_sealed: box.seal(secret),
        previous_secret_expires_at: answer.previous_secret_expires_at?.toISOString() ?? null,
        webhook: row,
      };
      await rememberAnswer(trx, scope, stored);
    }
    return answer;
  });
}

/** A rotation's answer as kept for its Idempotency-Key: the secret sealed, never in clear. */
interface StoredRotateAnswer {
  secret_sealed: string;
  previous_secret_expires_at: string | null;
  webhook: Record<string, any>;
}

/**
 * Ends a running overlap now: the previous secret is erased, and from the next attempt every
 * signature (`X-Webhook-Signature` included) is the new secret's. Without an overlap it changes
 * nothing and answers the webhook (idempotent).
 */
export async function endSecretOverlap(db: Db, caller: Caller, ref: WebhookRef): Promise<WebhookView> {
  await requireWebhook(db, caller, ref);
  return db.transaction(async (trx) => {
    await holdWebhook(trx, ref.webhookId);
    const [row] = await trx('webhooks')
      .where({ id: ref.webhookId })
      .update({ previous_secret_sealed: null, previous_secret_expires_at: null, updated_at: trx.fn.now() })
      .returning(WEBHOOK_COLUMNS);
    return webhookView(row);
  });
}
