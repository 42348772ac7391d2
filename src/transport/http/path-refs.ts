import type { PipelineRef } from '../../projects/projects.js';
import { requireId } from '../../validation.js';
import type { Request } from './router.js';

/** The pipeline a `/projects/:project_id/pipelines/:pipeline_id/…` path names; a non-id is a 400 naming the parameter. */
export function pipelineRef(req: Request): PipelineRef {
  return {
    projectId: requireId(req.params.project_id, 'project_id'),
    pipelineId: requireId(req.params.pipeline_id, 'pipeline_id'),
  };
}
