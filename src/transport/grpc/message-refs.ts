import type { PipelineRef } from '../../projects/projects.js';
import { requireId } from '../../validation.js';

/** The pipeline part of a SegmentRef or WebhookRef message; a missing ref is refused like a zero id. */
export function pipelineOf(ref: { projectId: number; pipelineId: number } | undefined): PipelineRef {
  return {
    projectId: requireId(ref?.projectId, 'ref.project_id'),
    pipelineId: requireId(ref?.pipelineId, 'ref.pipeline_id'),
  };
}
