import type { Db } from '../db/knex.js';
import type { Embedder, Lane } from '../analysis/embedder.js';
import type { Logger } from '../observability/logger.js';
import { keepBeating } from '../keep-beating.js';
import { wakeRelay } from '../outbox/outbox.js';
import { trainLabel, type LabelExample } from './label-model.js';

export interface TrainLabelVersionInput {
  labelId: number;
  version: number;
}

/** ready: this version now scores; superseded: a newer version (or the label's deletion) came first. */
export type TrainLabelVersionOutcome = 'ready' | 'superseded' | 'failed';

/**
 * Trains one version of a label on the worker (the label-training workflow's activity): embeds its
 * examples in one call, fits the model with its cross-validated quality (label-model.ts), and
 * stores both only if the label is still at this version, so of two updates racing the newest
 * always wins, whatever order their trainings end in. Idempotent: a retry trains the same model
 * again (training is deterministic) and writes the same row.
 */
export async function trainLabelVersion(
  deps: { db: Db; embedder: () => Promise<Embedder>; lane?: Lane; heartbeat?: () => void; log: Logger },
  input: TrainLabelVersionInput,
): Promise<TrainLabelVersionOutcome> {
  const { db } = deps;
  const row = await db('labels')
    .where({ id: input.labelId })
    .first('version', 'examples', 'project_id', 'model_version');
  if (!row || row.version !== input.version) return 'superseded';
  // A retry after this version's model was stored (the worker died before the answer): done, and
  // its backfill, started or finished, is left as it is.
  if (row.model_version === input.version) return 'ready';
  const examples = row.examples as LabelExample[];
  const embedder = await keepBeating(deps.heartbeat, 5_000, deps.embedder());
  const vectors = await keepBeating(
    deps.heartbeat,
    5_000,
    embedder.embed(
      examples.map((e) => e.text),
      deps.lane,
    ),
  );
  let trained: Awaited<ReturnType<typeof trainLabel>>;
  try {
    trained = await keepBeating(deps.heartbeat, 5_000, trainLabel(embedder.name, vectors, examples));
  } catch (err) {
    // Not a fault to retry: these examples cannot be learned (the api's checks make this rare).
    const updated = await db('labels')
      .where({ id: input.labelId, version: input.version })
      .update({
        state: 'failed',
        failure_reason: String((err as Error).message).slice(0, 500),
        updated_at: db.fn.now(),
      });
    return updated > 0 ? 'failed' : 'superseded';
  }
  // Counted before the update, not inside it: the label's row is not held while a project of
  // millions of users is counted.
  const [{ n: users }] = await db('users').where({ project_id: row.project_id }).count({ n: '*' });
  const updated = await db('labels')
    .where({ id: input.labelId, version: input.version })
    .whereRaw('model_version IS DISTINCT FROM ?', [input.version])
    .update({
      state: 'ready',
      failure_reason: null,
      model: JSON.stringify(trained.model),
      model_version: input.version,
      quality: JSON.stringify(trained.quality),
      trained_at: db.fn.now(),
      updated_at: db.fn.now(),
      // The project's stored messages are scored with it next (backfill-page.ts), started by the relay.
      backfill_pending: true,
      backfill_version: input.version,
      backfill_total: Number(users),
      backfill_users: 0,
      backfill_after: 0,
      backfill_started_at: null,
      backfill_done_at: null,
    });
  if (updated > 0) await wakeRelay(db);
  deps.log.info('label trained', {
    label_id: input.labelId,
    version: input.version,
    examples: examples.length,
    f1: trained.quality.f1,
    superseded: updated === 0,
  });
  return updated > 0 ? 'ready' : 'superseded';
}
