import { LabelState, type Label, type LabelRef, type LabelsServiceServer } from '../../../gen/profiling/v1/labels.js';
import type { AppContext } from '../../app.js';
import * as labels from '../../labels/manage-labels.js';
import { unary } from './unary.js';

const STATES: Record<labels.LabelView['state'], LabelState> = {
  training: LabelState.LABEL_STATE_TRAINING,
  ready: LabelState.LABEL_STATE_READY,
  failed: LabelState.LABEL_STATE_FAILED,
};

export function labelToProto(l: labels.LabelView): Label {
  return {
    name: l.name,
    description: l.description,
    state: STATES[l.state],
    failureReason: l.failure_reason ?? undefined,
    version: l.version,
    readyVersion: l.ready_version ?? undefined,
    examplesCount: l.examples_count,
    matchingExamples: l.matching_examples,
    quality: l.quality ? { ...l.quality, warning: l.quality.warning ?? undefined } : undefined,
    backfill: l.backfill
      ? {
          version: l.backfill.version,
          state: l.backfill.state,
          usersDone: l.backfill.users_done,
          usersTotal: l.backfill.users_total,
          doneAt: l.backfill.done_at ?? undefined,
        }
      : undefined,
    examples: l.examples ?? [],
    createdAt: l.created_at,
    updatedAt: l.updated_at,
    trainedAt: l.trained_at ?? undefined,
  };
}

const refOf = (r: LabelRef | undefined) => ({ projectId: r?.projectId ?? 0, name: r?.name ?? '' });

export function labelsService(ctx: AppContext): LabelsServiceServer {
  const { db } = ctx;
  const quotas = ctx.config.quotas;
  return {
    createLabel: unary(ctx, 'labels:write', async (caller, req) => ({
      label: labelToProto(
        await labels.createLabel(
          db,
          caller,
          req.projectId,
          { name: req.name, description: req.description, examples: req.examples },
          quotas,
        ),
      ),
    })),
    listLabels: unary(ctx, 'labels:read', async (caller, req) => ({
      labels: (await labels.listLabels(db, caller, req.projectId)).map(labelToProto),
    })),
    getLabel: unary(ctx, 'labels:read', async (caller, req) => {
      const { projectId, name } = refOf(req.ref);
      return { label: labelToProto(await labels.getLabel(db, caller, projectId, name)) };
    }),
    updateLabel: unary(ctx, 'labels:write', async (caller, req) => {
      const { projectId, name } = refOf(req.ref);
      const input = { description: req.description, examples: req.examples };
      return { label: labelToProto(await labels.updateLabel(db, caller, projectId, name, input, quotas)) };
    }),
    addLabelExamples: unary(ctx, 'labels:write', async (caller, req) => {
      const { projectId, name } = refOf(req.ref);
      return {
        label: labelToProto(await labels.addExamples(db, caller, projectId, name, { examples: req.examples }, quotas)),
      };
    }),
    deleteLabel: unary(ctx, 'labels:write', async (caller, req) => {
      const { projectId, name } = refOf(req.ref);
      await labels.deleteLabel(db, caller, projectId, name);
      return {};
    }),
    classifyWithLabel: unary(ctx, 'labels:read', async (caller, req) => {
      const { projectId, name } = refOf(req.ref);
      return labels.classifyTexts(db, caller, projectId, name, { texts: req.texts }, ctx.ruleEmbedder);
    }),
  };
}
