import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import { startInOrder } from '../relay/start-in-order.js';

/**
 * Starts the workflows of a label's versions: the training (workflows/label-training.ts), and the
 * backfill of a version that became ready (workflows/label-backfill.ts).
 */
export interface LabelTrainingStarter {
  startLabelBackfill(args: {
    labelId: number;
    projectId: number;
    tenantId: number;
    version: number;
    versionUid: string;
  }): Promise<void>;
  startLabelTraining(args: {
    labelId: number;
    projectId: number;
    /** Temporal's fairness key: tenants' tasks take turns in the task queue. */
    tenantId: number;
    version: number;
    versionUid: string;
  }): Promise<void>;
}

/** Trainings started per relay pass; the rest wait for the next. */
const PER_PASS = 100;

/**
 * A label's creation or change commits `training_pending` with its version bump and wakes the relay
 * (NOTIFY outbox), which starts the training here and clears the flag for that version. If
 * Temporal is away the flag stays and a later pass starts it: no version is left untrained.
 * Training takes seconds and one version supersedes another, so there is no admission per tenant.
 */
export async function startPendingTrainings(deps: {
  db: Db;
  starters: LabelTrainingStarter;
  log: Logger;
}): Promise<void> {
  const pending = await deps
    .db('labels as l')
    .join('projects as p', 'p.id', 'l.project_id')
    .where('l.training_pending', true)
    .orderBy('l.id')
    .limit(PER_PASS)
    .select('l.id', 'l.project_id', 'p.tenant_id', 'l.version', 'l.version_uid');
  await startInOrder(
    deps.log,
    pending,
    async (l) => {
      await deps.starters.startLabelTraining({
        labelId: Number(l.id),
        projectId: Number(l.project_id),
        tenantId: Number(l.tenant_id),
        version: l.version,
        versionUid: l.version_uid,
      });
      await deps
        .db('labels')
        .where({ id: l.id, version: l.version })
        .update({ training_pending: false, training_started_at: deps.db.fn.now() });
    },
    { message: 'label training start failed; will retry', ids: (l) => ({ label_id: l.id, version: l.version }) },
  );
}

/**
 * Starts the backfill of each version that became ready (`backfill_pending`, set with its model),
 * and clears the flag for that version; a newer version's training replaces the flag's version.
 */
export async function startPendingBackfills(deps: {
  db: Db;
  starters: LabelTrainingStarter;
  log: Logger;
}): Promise<void> {
  const pending = await deps
    .db('labels as l')
    .join('projects as p', 'p.id', 'l.project_id')
    .where('l.backfill_pending', true)
    .orderBy('l.id')
    .limit(PER_PASS)
    .select('l.id', 'l.project_id', 'p.tenant_id', 'l.backfill_version', 'l.version', 'l.version_uid');
  await startInOrder(
    deps.log,
    pending,
    async (l) => {
      // The record: the version's own identity while it is the latest, else a derived one (a
      // version that trained, then was superseded before its backfill started, still backfills).
      await deps.starters.startLabelBackfill({
        labelId: Number(l.id),
        projectId: Number(l.project_id),
        tenantId: Number(l.tenant_id),
        version: l.backfill_version,
        versionUid: l.version === l.backfill_version ? l.version_uid : `${l.id}-v${l.backfill_version}`,
      });
      await deps
        .db('labels')
        .where({ id: l.id, backfill_version: l.backfill_version })
        .update({ backfill_pending: false, backfill_started_at: deps.db.fn.now() });
    },
    {
      message: 'label backfill start failed; will retry',
      ids: (l) => ({ label_id: l.id, version: l.backfill_version }),
    },
  );
}
