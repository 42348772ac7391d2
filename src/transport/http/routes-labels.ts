import { z } from 'zod';
import type { AppContext } from '../../app.js';
import * as labels from '../../labels/manage-labels.js';
import { requireId } from '../../validation.js';
import { authenticated } from './authenticated.js';
import { addExamplesBody, classifyBody, createLabelBody, read, updateLabelBody } from './inputs.js';
import type { Request, Router } from './router.js';
import { errors, routeDoc, type RouteDoc } from './openapi/route-doc.js';
import * as out from './openapi/schemas.js';

const BASE = '/api/v1/projects/:project_id/labels';

const projectOf = (req: Request) => requireId(req.params.project_id, 'project_id');
const labelDoc = (doc: Omit<RouteDoc, 'tag' | 'auth'>) => routeDoc({ ...doc, tag: 'Labels', auth: 'apiKey' });
const trained = (description: string) => ({ 202: { description, body: out.label }, ...errors(400, 404, 422) });

export function addLabelRoutes(router: Router, ctx: AppContext): void {
  const { db } = ctx;
  const quotas = ctx.config.quotas;

  router.add(
    'POST',
    BASE,
    authenticated(ctx, 'labels:write', async (who, req) => ({
      status: 202,
      body: await labels.createLabel(db, who, projectOf(req), read(createLabelBody, await req.json()), quotas),
    })),
    labelDoc({
      operationId: 'createLabel',
      summary: 'Teach the project a label from examples (trained in the background)',
      description:
        'At least 5 matching and 5 non-matching examples; answered 202 with the label in state `training`. ' +
        'A project has at most TENANT_LABELS_PER_PROJECT (50) labels, a label TENANT_EXAMPLES_PER_LABEL (500) examples: past either, 422.',
      body: createLabelBody,
      responses: { ...trained('The label, training'), ...errors(409) },
    }),
  );
  router.add(
    'GET',
    BASE,
    authenticated(ctx, 'labels:read', async (who, req) => ({
      status: 200,
      body: { labels: await labels.listLabels(db, who, projectOf(req)) },
    })),
    labelDoc({
      operationId: 'listLabels',
      summary: "List a project's labels (without their examples)",
      responses: {
        200: { description: 'The labels', body: z.object({ labels: z.array(out.label) }) },
        ...errors(400, 404),
      },
    }),
  );
  router.add(
    'GET',
    `${BASE}/:name`,
    authenticated(ctx, 'labels:read', async (who, req) => ({
      status: 200,
      body: await labels.getLabel(db, who, projectOf(req), req.params.name),
    })),
    labelDoc({
      operationId: 'getLabel',
      summary: 'Get a label: its state, quality and examples',
      responses: { 200: { description: 'The label', body: out.label }, ...errors(400, 404) },
    }),
  );
  router.add(
    'PUT',
    `${BASE}/:name`,
    authenticated(ctx, 'labels:write', async (who, req) => ({
      status: 202,
      body: await labels.updateLabel(
        db,
        who,
        projectOf(req),
        req.params.name,
        read(updateLabelBody, await req.json()),
        quotas,
      ),
    })),
    labelDoc({
      operationId: 'updateLabel',
      summary: 'Replace the example set (and the description): a new version, trained in the background',
      body: updateLabelBody,
      responses: trained('The label, its new version training'),
    }),
  );
  router.add(
    'POST',
    `${BASE}/:name/examples`,
    authenticated(ctx, 'labels:write', async (who, req) => ({
      status: 202,
      body: await labels.addExamples(
        db,
        who,
        projectOf(req),
        req.params.name,
        read(addExamplesBody, await req.json()),
        quotas,
      ),
    })),
    labelDoc({
      operationId: 'addLabelExamples',
      summary: 'Add examples (how a mistake is corrected): a new version, trained in the background',
      body: addExamplesBody,
      responses: trained('The label, its new version training'),
    }),
  );
  router.add(
    'DELETE',
    `${BASE}/:name`,
    authenticated(ctx, 'labels:write', async (who, req) => {
      await labels.deleteLabel(db, who, projectOf(req), req.params.name);
      return { status: 204 };
    }),
    labelDoc({
      operationId: 'deleteLabel',
      summary: 'Delete a label',
      responses: { 204: { description: 'Deleted' }, ...errors(400, 404, 409) },
    }),
  );
  router.add(
    'POST',
    `${BASE}/:name/classify`,
    authenticated(ctx, 'labels:read', async (who, req) => ({
      status: 200,
      body: await labels.classifyTexts(
        db,
        who,
        projectOf(req),
        req.params.name,
        read(classifyBody, await req.json()),
        ctx.ruleEmbedder,
      ),
    })),
    labelDoc({
      operationId: 'classifyWithLabel',
      summary: 'Score up to 100 texts with the ready version, storing nothing',
      body: classifyBody,
      responses: {
        200: { description: "Each text's score and match", body: out.classification },
        ...errors(400, 404, 409),
        503: { ...errors(503)[503], description: 'The database or the embedding model is unavailable' },
      },
    }),
  );
}
