import { z } from 'zod';
import type { AppContext } from '../../app.js';
import { eraseUser } from '../../privacy/erase-user.js';
import { getErasure, listErasures } from '../../privacy/erasures.js';
import { liftSuppression, listSuppressions } from '../../privacy/suppressions.js';
import { exportProfile } from '../../privacy/export-profile.js';
import { getProject, updateProject } from '../../projects/projects.js';
import { requireId } from '../../validation.js';
import { authenticated } from './authenticated.js';
import { StreamBody } from './stream-body.js';
import {
  eraseQuery,
  listErasuresQuery,
  listSuppressionsQuery,
  projectIdQuery,
  read,
  updateProjectBody,
} from './inputs.js';
import type { Router } from './router.js';
import { errors, routeDoc } from './openapi/route-doc.js';
import * as out from './openapi/schemas.js';

/** A user's data rights (docs/privacy.md): erasure, suppression, export, and a project's retention. */
export function addPrivacyRoutes(router: Router, ctx: AppContext): void {
  const { db } = ctx;
  const deps = { db, userHash: ctx.userHash };

  router.add(
    'DELETE',
    '/api/v1/profiles/:user_id',
    authenticated(ctx, 'privacy', async (who, req) => {
      const q = read(eraseQuery, req.query);
      return { status: 202, body: await eraseUser(deps, who, { ...q, userId: req.params.user_id }) };
    }),
    routeDoc({
      operationId: 'eraseProfile',
      summary: 'Erase a user: messages, batch items, profile, memberships (GDPR art. 17)',
      description:
        'Done when answered: the 202 is for the `user_removed` events (reason `erased`) it queued, one per segment ' +
        'the user was a member of, still on their way. Erasing again, or an id never seen, answers 202 with zero ' +
        'counts. `suppress=true` also skips the id in later batches.',
      tag: 'Privacy',
      auth: 'apiKey',
      query: eraseQuery,
      responses: { 202: { description: 'The erasure (its audit row)', body: out.erasure }, ...errors(400, 404) },
    }),
  );

  router.add(
    'GET',
    '/api/v1/profiles/:user_id/export',
    authenticated(ctx, 'privacy', async (who, req) => {
      const projectId = read(projectIdQuery, req.query).project_id;
      const pieces = await exportProfile(db, who, { projectId, userId: req.params.user_id });
      return {
        status: 200,
        body: new StreamBody('application/json; charset=utf-8', pieces),
        headers: { 'Content-Disposition': 'attachment; filename="profile-export.json"' },
      };
    }),
    routeDoc({
      operationId: 'exportProfile',
      summary: 'Export everything stored about a user, as one JSON document (GDPR art. 15 and 20)',
      description:
        'Streamed: events, pending items and messages are read in pages of about 1 MB, each when the client has ' +
        'taken the last, so a long history does not sit in memory. An open export counts as one of the ' +
        "tenant's concurrent requests until its last byte (429 past them); a client that takes nothing for " +
        '`HTTP_SEND_TIMEOUT_MS` (30 s) is cut. HEAD answers the same status and headers from the checks alone.',
      tag: 'Privacy',
      auth: 'apiKey',
      query: projectIdQuery,
      responses: { 200: { description: 'The document', body: out.profileExport }, ...errors(400, 404) },
    }),
  );

  router.add(
    'GET',
    '/api/v1/erasures/:erasure_id',
    authenticated(ctx, 'privacy', async (who, req) => ({
      status: 200,
      body: await getErasure(db, who, req.params.erasure_id),
    })),
    routeDoc({
      operationId: 'getErasure',
      summary: 'Get an erasure: its state and what it removed',
      tag: 'Privacy',
      auth: 'apiKey',
      responses: { 200: { description: 'The erasure', body: out.erasure }, ...errors(404) },
    }),
  );

  router.add(
    'GET',
    '/api/v1/erasures',
    authenticated(ctx, 'privacy', async (who, req) => ({
      status: 200,
      body: await listErasures(deps, who, read(listErasuresQuery, req.query)),
    })),
    routeDoc({
      operationId: 'listErasures',
      summary: "A project's audit trail of erasures and retention sweeps, newest first",
      tag: 'Privacy',
      auth: 'apiKey',
      query: listErasuresQuery,
      responses: {
        200: {
          description: 'The audit rows (counts only, no content)',
          body: z.object({ erasures: z.array(out.erasure) }),
        },
        ...errors(400, 404),
      },
    }),
  );

  router.add(
    'GET',
    '/api/v1/suppressions',
    authenticated(ctx, 'privacy', async (who, req) => ({
      status: 200,
      body: await listSuppressions(db, who, read(listSuppressionsQuery, req.query)),
    })),
    routeDoc({
      operationId: 'listSuppressions',
      summary: "A project's suppressed user ids, as keyed hashes, newest first",
      tag: 'Privacy',
      auth: 'apiKey',
      query: listSuppressionsQuery,
      responses: {
        200: { description: 'The suppressions', body: z.object({ suppressions: z.array(out.suppression) }) },
        ...errors(400, 404),
      },
    }),
  );

  router.add(
    'DELETE',
    '/api/v1/suppressions/:user_id',
    authenticated(ctx, 'privacy', async (who, req) => {
      const projectId = read(projectIdQuery, req.query).project_id;
      await liftSuppression(deps, who, { projectId, userId: req.params.user_id });
      return { status: 204 };
    }),
    routeDoc({
      operationId: 'liftSuppression',
      summary: "Lift a user id's suppression: later batches that name it are analysed again",
      tag: 'Privacy',
      auth: 'apiKey',
      query: projectIdQuery,
      responses: { 204: { description: 'Lifted' }, ...errors(400, 404) },
    }),
  );

  router.add(
    'GET',
    '/api/v1/projects/:project_id',
    authenticated(ctx, null, async (who, req) => ({
      status: 200,
      body: await getProject(db, who, requireId(req.params.project_id, 'project_id')),
    })),
    routeDoc({
      operationId: 'getProject',
      summary: 'Get a project and its settings',
      tag: 'Projects',
      auth: 'apiKey',
      responses: { 200: { description: 'The project', body: out.project }, ...errors(400, 404) },
    }),
  );

  router.add(
    'PUT',
    '/api/v1/projects/:project_id',
    authenticated(ctx, 'projects', async (who, req) => ({
      status: 200,
      body: await updateProject(
        db,
        who,
        requireId(req.params.project_id, 'project_id'),
        read(updateProjectBody, await req.json()),
      ),
    })),
    routeDoc({
      operationId: 'updateProject',
      summary: "Change a project's name or message retention",
      description:
        '`message_retention_days`: message texts older than this many days (by their timestamp) are erased by the ' +
        "worker's sweep, their analysis kept; null turns it off. Fields left out stay as they are.",
      tag: 'Projects',
      auth: 'apiKey',
      body: updateProjectBody,
      responses: { 200: { description: 'The project', body: out.project }, ...errors(400, 404) },
    }),
  );
}
