import { z } from 'zod';
import { invalid } from '../../errors.js';
import type { CreateSegmentInput, PageInput, UpdateSegmentInput } from '../../segments/manage-segments.js';
import type { IdentifyUsersInput } from '../../ingest/validate-batch.js';
import type { ListProfilesInput } from '../../profiles/read-profiles.js';
import { PROFILE_SORTS } from '../../profiles/profile-counts.js';
import type { CreateWebhookInput, ListDeliveriesInput, UpdateWebhookInput } from '../../webhooks/manage-webhooks.js';
import type { RotateSecretInput } from '../../webhooks/rotate-secret.js';
import { requireId } from '../../validation.js';
import type { ProjectInput, ProjectUpdate } from '../../projects/projects.js';
import type { ListErasuresInput } from '../../privacy/erasures.js';

/**
 * The gateway's half of validation: JSON bodies and query strings become the use cases' typed
 * inputs here, and a value of the wrong JSON type is a 400 naming its field. Limits, lengths,
 * enums and the rule language are the domain's and are checked there, for both transports.
 */
export function read<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = fieldName(issue.path) || 'body';
  throw invalid(field, issue.message.startsWith('Invalid') ? `${field} has the wrong type` : issue.message);
}

/** `['users', 3, 'user_id']` → `users[3].user_id`, the way every error names a field. */
function fieldName(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

const string = (field: string) => z.string({ error: `${field} must be a string` });
const object = <S extends z.ZodRawShape>(shape: S, field = 'body') =>
  z.object(shape, { error: `${field} must be a JSON object` });
/** Ids are numbers in JSON; a string of digits is accepted too, as it is in paths. */
const id = (field: string) =>
  z
    .unknown()
    .transform((v) => requireId(v, field))
    .meta({ type: 'integer', minimum: 1, description: `${field} (a string of digits is accepted too)` });

/** Query parameters are strings; an empty one counts as absent. */
const queryNumber = (field: string, pattern: RegExp, kind: string, type: 'integer' | 'number') =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      if (pattern.test(v)) return Number(v);
      ctx.addIssue({ code: 'custom', message: `${field} must be ${kind}` });
      return z.NEVER;
    })
    // What the document says the parameter is (the string is only how a query carries it).
    .meta({ type });
const queryInt = (field: string) => queryNumber(field, /^-?\d{1,15}$/, 'an integer', 'integer');
const queryDecimal = (field: string) => queryNumber(field, /^-?(\d+\.?\d*|\.\d+)$/, 'a number', 'number');

export const identifyUsersBody: z.ZodType<IdentifyUsersInput> = object({
  project_id: id('project_id'),
  source_label: string('source_label').nullish(),
  users: z.array(
    object(
      {
        user_id: string('user_id'),
        text: string('text'),
        // Not z.record: it drops a `__proto__` key, which the domain must see to refuse it.
        attributes: z
          .custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
            error: 'attributes must be an object',
          })
          .meta({ type: 'object', description: 'At most 50 scalar values (strings, finite numbers, booleans, null)' })
          .nullish(),
        timestamp: string('timestamp').nullish(),
      },
      'each user',
    ),
    { error: 'users must be a non-empty array' },
  ),
}).transform((b) => ({
  projectId: b.project_id,
  sourceLabel: b.source_label,
  users: b.users.map((u) => ({ userId: u.user_id, text: u.text, attributes: u.attributes, timestamp: u.timestamp })),
}));

export const namedBody = object({ name: string('name') });

const retentionDays = z
  .union([z.number({ error: 'message_retention_days must be a number or null' }), z.null()], {
    error: 'message_retention_days must be a number or null',
  })
  .meta({
    description:
      'Extension: days after which message texts are erased (their analysis stays); null or absent keeps them',
  });

/** A new project: its name and (extension) its message retention. */
export const createProjectBody: z.ZodType<ProjectInput> = object({
  name: string('name'),
  message_retention_days: retentionDays.optional(),
});

/** PUT /api/v1/projects/{id}: the fields given change; `message_retention_days: null` turns retention off. */
export const updateProjectBody: z.ZodType<ProjectUpdate> = object({
  name: string('name').optional(),
  message_retention_days: retentionDays.optional(),
});

/** `DELETE /api/v1/profiles/{user_id}?project_id=…&suppress=true` */
export const eraseQuery = z
  .object({
    project_id: id('project_id'),
    suppress: z
      .enum(['true', 'false'], { error: 'suppress must be true or false' })
      .optional()
      .meta({ description: 'true: later batches that name this user id skip it (a suppression)' }),
  })
  .transform((q) => ({ projectId: q.project_id, suppress: q.suppress === 'true' }));

export const listErasuresQuery: z.ZodType<ListErasuresInput> = z
  .object({
    project_id: id('project_id'),
    user_id: z.string().optional().meta({ description: "Only this user id's erasures (matched by its keyed hash)" }),
    kind: z
      .string()
      .optional()
      .meta({ enum: ['erasure', 'retention'] }),
    limit: queryInt('limit'),
    offset: queryInt('offset'),
  })
  .transform((q) => ({ projectId: q.project_id, userId: q.user_id, kind: q.kind, limit: q.limit, offset: q.offset }));

export const listSuppressionsQuery = z
  .object({ project_id: id('project_id'), limit: queryInt('limit'), offset: queryInt('offset') })
  .transform((q) => ({ projectId: q.project_id, limit: q.limit, offset: q.offset }));

export const createSegmentBody: z.ZodType<CreateSegmentInput> = object({
  id: string('id').nullish(),
  name: string('name'),
  description: string('description').nullish(),
  rule: z.unknown().optional(),
});

export const updateSegmentBody: z.ZodType<UpdateSegmentInput> = object({
  name: string('name').optional(),
  description: string('description').nullish(),
  rule: z.unknown().optional(),
});

const events = z.array(string('each event'), { error: 'events must be an array of event type names' });

const segmentIds = z.array(string('each segment id'), { error: 'segments must be an array of segment ids' });

export const createWebhookBody: z.ZodType<CreateWebhookInput> = object({
  url: string('url'),
  secret: string('secret').nullish(),
  events: events.optional(),
  segments: segmentIds.nullish().transform((v) => v ?? undefined),
});

export const updateWebhookBody: z.ZodType<UpdateWebhookInput> = object({
  url: string('url').optional(),
  secret: string('secret').nullish(),
  events: events.optional(),
  segments: segmentIds.optional(),
  is_active: z.boolean({ error: 'is_active must be a boolean' }).optional(),
}).transform(({ is_active, ...rest }) => ({ ...rest, isActive: is_active }));

/** The body is optional: none, or `{}`, rotates to a generated secret with a 24 h overlap. */
export const rotateSecretBody: z.ZodType<RotateSecretInput> = object({
  secret: string('secret').optional(),
  overlap_seconds: z.number({ error: 'overlap_seconds must be a number' }).optional(),
}).transform((b) => ({ secret: b.secret, overlapSeconds: b.overlap_seconds }));

export const recoverBody = object({ since: string('since') });

export const listProfilesQuery: z.ZodType<ListProfilesInput> = z
  .object({
    project_id: id('project_id'),
    limit: queryInt('limit'),
    offset: queryInt('offset'),
    churn_risk_gte: queryDecimal('churn_risk_gte'),
    churn_risk_lte: queryDecimal('churn_risk_lte'),
    sentiment_trend: z.string().optional(),
    min_messages: queryInt('min_messages'),
    after: z.string().optional(),
    sort: z
      .string()
      .optional()
      .meta({
        enum: [...PROFILE_SORTS],
        description:
          'Extension: `updated_at` (default: most recently updated first) or `churn_risk` (highest ' +
          'churn_risk_score first); ties by user_id. `after` works with `updated_at` only.',
      }),
  })
  .transform((q) => ({
    projectId: q.project_id,
    limit: q.limit,
    offset: q.offset,
    after: q.after,
    sort: q.sort,
    churnRiskGte: q.churn_risk_gte,
    churnRiskLte: q.churn_risk_lte,
    sentimentTrend: q.sentiment_trend,
    minMessages: q.min_messages,
  }));

export const pageQuery = z.object({
  limit: queryInt('limit'),
  offset: queryInt('offset'),
}) satisfies z.ZodType<PageInput>;

/** The profile routes name their project in the query: `/api/v1/profiles/:user_id?project_id=…`. */
export const projectIdQuery = z.object({ project_id: id('project_id') });
/**
 * The deliveries list is newest first: `limit`, and the extensions `status`, `event_id` and
 * `before` (cursor); an `offset` there is ignored, as before.
 */
export const deliveriesQuery: z.ZodType<ListDeliveriesInput> = z
  .object({
    limit: queryInt('limit'),
    status: z.string().optional(),
    event_id: queryInt('event_id'),
    before: queryInt('before'),
  })
  .transform((q) => ({
    limit: q.limit,
    status: q.status === '' ? undefined : q.status,
    eventId: q.event_id,
    before: q.before,
  }));

export const tenantBody = object({ name: string('name') });
export const revokeKeyBody = object({ api_key: string('api_key') }).transform((b) => ({ apiKey: b.api_key }));

const labelExample = object(
  {
    text: string('text'),
    match: z.boolean({ error: 'match must be true or false' }),
  },
  'each example',
).meta({ id: 'LabelExample' });
const labelExamples = z.array(labelExample, { error: 'examples must be an array of {"text", "match"}' });

/** POST …/labels: a new label and its first example set (at least 5 of each side). */
export const createLabelBody = object({
  name: string('name').meta({ description: 'A slug (a-z, 0-9, _ and -, up to 64), unique in the project' }),
  description: string('description').nullish(),
  examples: labelExamples,
});

/** PUT …/labels/{name}: the whole example set, and the description if given. */
export const updateLabelBody = object({
  name: string('name').optional().meta({ description: "The label's name, if given: a label cannot be renamed" }),
  description: string('description').nullish(),
  examples: labelExamples,
});

/** POST …/labels/{name}/examples: examples to add. */
export const addExamplesBody = object({ examples: labelExamples });

/** POST …/labels/{name}/classify: up to 100 texts to score, stored nowhere. */
export const classifyBody = object({
  texts: z.array(string('each text'), { error: 'texts must be an array of strings' }),
});

/** POST /api/v1/api-keys: a new key of the tenant, no wider than the acting one (auth/manage-keys.ts). */
export const createApiKeyBody = object({
  name: string('name').meta({ description: 'What the key is for (1 to 200 characters), shown in the list' }),
  scopes: z.array(z.unknown(), { error: 'scopes must be a non-empty array of scope names' }).meta({
    description: 'Scopes the acting key holds itself (docs/api.md "Scopes")',
    type: 'array',
    items: { type: 'string' },
  }),
  projects: z
    .array(z.unknown(), { error: 'projects must be null or an array of project ids' })
    .nullish()
    .meta({ description: "Project ids the key is limited to; null: every project; absent: the acting key's own" }),
  expires_at: string('expires_at')
    .nullish()
    .meta({ description: "RFC 3339 time the key stops working; null: never; absent: the acting key's own expiry" }),
}).transform((b) => ({
  name: b.name,
  scopes: b.scopes as string[],
  projects: b.projects as number[] | null | undefined,
  expires_at: b.expires_at,
}));

/** GET /api/v1/api-keys/events: newest first, paged back with `before` (an event id). */
export const keyEventsQuery = z.object({
  limit: queryInt('limit'),
  before: z.string().optional().meta({ description: 'An event id: the page of events before it' }),
});
