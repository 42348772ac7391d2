import { z } from 'zod';
import { ERROR_CODES } from '../../../errors.js';
import { SENTIMENT_TRENDS } from '../../../profiles/aggregates.js';
import { EVENT_TYPES } from '../../../webhooks/manage-webhooks.js';

/**
 * What the gateway answers, as zod schemas the OpenAPI document is rendered from. They describe
 * the JSON the use cases' views become (dates as ISO 8601 strings); the end-to-end tests check
 * every answer they receive against the rendered document (test/support/contract.ts), so a view
 * that changes without its schema fails there.
 */

const timestamp = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 UTC timestamp' });
const ratio = z.number().min(0).max(1);

export const errorBody = z
  .object({
    error: z.object({
      code: z.enum([...ERROR_CODES, 'method_not_allowed']).meta({
        description: 'A closed set; `method_not_allowed` is the 405 of a known path asked with another method',
      }),
      message: z.string(),
      field: z.string().optional().meta({ description: 'The parameter or body field at fault, as `users[3].user_id`' }),
    }),
  })
  .meta({ id: 'Error', description: 'The body of every error answer' });

const churnRiskFactors = z
  .object({
    negative_sentiment: z.number(),
    declining_trend: z.number(),
    churn_intent: z.number(),
    churn_words: z.array(z.string()).optional().meta({
      description:
        "The words and word pairs that drove the window's churn readings, most messages first, at most 5; absent on profiles last folded before they were kept",
    }),
  })
  .meta({ description: 'Extension: the churn score factor by factor, and the words behind it' });

const aggregates = z
  .object({
    window_size: z.int(),
    avg_sentiment: z.number().min(-1).max(1),
    sentiment_trend: z.enum(SENTIMENT_TRENDS),
    top_topics: z.array(z.string()),
    topic_scores: z.record(z.string(), ratio),
    intentions_summary: z.array(z.string()),
    negative_ratio: ratio,
    churn_risk_score: ratio,
    churn_risk_factors: churnRiskFactors,
    price_sensitive_ratio: ratio,
    message_frequency_days: z.number().nullable().meta({ description: 'null with a single message' }),
    message_count: z.int().meta({ description: 'Extension: all analysed messages, not only the window' }),
    labels: z.array(z.string()).optional().meta({
      description:
        "Extension: the project's custom labels matched by any message of the window, the most shared first (docs/labels.md); absent on profiles last folded before labels existed",
    }),
    label_ratios: z.record(z.string(), ratio).optional().meta({
      description: "Extension: per label matched in the window, the share of the window's messages that match it",
    }),
  })
  .meta({ id: 'Aggregates' });

export const profile = z
  .object({
    user_id: z.string(),
    source_label: z.string(),
    attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    aggregates,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Profile' });

const segmentMembership = z
  .object({
    pipeline_id: z.int(),
    segment_id: z.string().meta({ description: "The segment's id, as the segments routes name it" }),
    name: z.string(),
    score: z.number().meta({ description: "The rule's score at the user's latest evaluation" }),
    since: timestamp.meta({ description: 'When the user entered the segment' }),
  })
  .meta({ id: 'SegmentMembership' });

export const profileWithSegments = profile
  .extend({
    segments: z.array(segmentMembership).meta({
      description:
        'Extension: the segments the user is a member of now, by pipeline_id then segment_id (not in the profile list)',
    }),
  })
  .meta({ id: 'ProfileWithSegments' });

export const profileList = z.object({
  users: z.array(profile),
  total: z.int().meta({ description: 'All matching profiles, not the page' }),
  next_after: z
    .string()
    .optional()
    .meta({ description: 'Extension: on a full page in the `updated_at` order, the `after` of the next page' }),
});

export const timeline = z.object({
  user_id: z.string(),
  timeline: z.array(
    z
      .object({
        timestamp,
        source_label: z.string(),
        text: z
          .string()
          .nullable()
          .describe(
            "What the user wrote (an extension of the contract); null once the project's message retention or an erasure removed the text.",
          ),
        sentiment: z.number().min(-1).max(1),
        topics: z.array(z.string()),
        intentions: z.array(z.string()),
        labels: z
          .array(z.string())
          .meta({ description: "Extension: the project's custom labels the message matched (docs/labels.md)" }),
      })
      .meta({ id: 'TimelineEntry' }),
  ),
});

export const identifyUsersAnswer = z.object({
  accepted: z.int(),
  source_id: z.int(),
  message: z.string(),
  suppressed: z
    .int()
    .optional()
    .meta({ description: 'Extension: items left out because their user id is suppressed; only when some were' }),
});

export const batch = z
  .object({
    source_id: z.int(),
    project_id: z.int(),
    source_label: z.string(),
    status: z.enum(['waiting', 'running', 'completed']),
    accepted: z.int().meta({ description: "Items stored for analysis (the 202 answer's accepted)" }),
    suppressed: z.int().meta({ description: 'Items left out at submission: their user id is suppressed' }),
    processed: z.int().nullable().meta({ description: 'Items analysed; null until completed' }),
    failed: z.int().nullable().meta({ description: 'Items whose analysis failed; null until completed' }),
    erased: z.int().meta({ description: 'Items an erasure of their user took (analysed before or not)' }),
    created_at: timestamp,
    completed_at: timestamp.nullable(),
  })
  .meta({ id: 'Batch' });

export const project = z
  .object({
    id: z.int(),
    name: z.string(),
    message_retention_days: z
      .int()
      .nullable()
      .meta({ description: 'Extension: days after which message texts are erased; null keeps them' }),
    created_at: timestamp,
  })
  .meta({ id: 'Project' });

export const erasure = z
  .object({
    id: z.string().meta({ description: 'The erasure id (a UUID)' }),
    kind: z.enum(['erasure', 'retention']),
    state: z.enum(['completed']),
    project_id: z.int(),
    user_id_hash: z
      .string()
      .nullable()
      .meta({ description: 'Keyed hash of the erased user id (the id itself is not kept); null for retention' }),
    suppressed: z.boolean(),
    requested_by: z.string().nullable().meta({ description: "The API key's prefix; null for the retention sweep" }),
    counts: z.object({
      batch_items: z.int(),
      messages: z.int(),
      memberships: z.int(),
      events: z.int(),
      profiles: z.int(),
      user_removed_events: z.int(),
    }),
    requested_at: timestamp,
    completed_at: timestamp.nullable(),
  })
  .meta({ id: 'Erasure' });

export const suppression = z
  .object({ user_id_hash: z.string(), created_at: timestamp, erasure_id: z.string().nullable() })
  .meta({ id: 'Suppression' });

export const profileExport = z
  .object({
    user_id: z.string(),
    project_id: z.int(),
    exported_at: timestamp,
    profile: z.object({}).passthrough().nullable(),
    attributes: z.record(z.string(), z.unknown()),
    memberships: z.array(z.object({}).passthrough()),
    events: z.array(z.object({}).passthrough()),
    pending_items: z.array(z.object({}).passthrough()),
    messages: z.array(
      z
        .object({
          timestamp,
          source_id: z.int(),
          source_label: z.string(),
          text: z.string().nullable(),
          text_erased_at: timestamp.optional(),
          sentiment: z.number(),
          topics: z.array(z.string()),
          intentions: z.array(z.string()),
          churn_words: z.array(z.string()),
          labels: z.array(z.string()).optional(),
          analysed_at: timestamp,
        })
        .passthrough(),
    ),
  })
  .meta({ id: 'ProfileExport' });
export const pipeline = z
  .object({ id: z.int(), project_id: z.int(), name: z.string(), created_at: timestamp })
  .meta({ id: 'Pipeline' });

export const segment = z
  .object({
    id: z.string(),
    pipeline_id: z.int(),
    name: z.string(),
    description: z.string(),
    rule: z.unknown().meta({ description: 'The rule, in the rule language (docs/aggregates-and-rules.md)' }),
    status: z.enum(['draft', 'deployed']),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Segment' });

export const segmentUsers = z.object({
  users: z.array(z.object({ user_id: z.string(), score: z.number(), since: timestamp })),
  total: z.int(),
});

export const webhook = z
  .object({
    id: z.int(),
    pipeline_id: z.int(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    is_active: z.boolean(),
    segments: z.array(z.string()).meta({ description: 'Extension: the segments it is limited to; empty: all' }),
    disabled_reason: z
      .string()
      .nullable()
      .meta({ description: 'Extension: why the service deactivated it (410 Gone, or 5 days of failed deliveries)' }),
    previous_secret_expires_at: timestamp
      .nullable()
      .meta({ description: "Extension: while a rotation's overlap runs, when the previous secret stops signing" }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Webhook', description: 'The secret is never included' });

export const delivery = z
  .object({
    id: z.int(),
    event_id: z.int(),
    webhook_id: z.int(),
    status: z.enum(['success', 'failed']),
    status_code: z.int(),
    response_body: z.string(),
    duration_ms: z.int(),
    retry_after_ms: z
      .int()
      .nullable()
      .meta({ description: "Extension: the receiver's Retry-After that held back the next attempt" }),
    created_at: timestamp,
    attempt: z.int().min(1).meta({ description: "Extension: the attempt's number in its delivery, from 1" }),
    final: z.boolean().meta({
      description:
        "Extension: the delivery's last attempt (the schedule ended, 410 Gone, or the webhook was inactive or unsubscribed)",
    }),
    next_attempt_at: timestamp.nullable().meta({
      description:
        "Extension: after a failed attempt that is not final, the time the delivery's workflow sleeps until before the next attempt, recorded with the attempt: the delay of the schedule the delivery started with, or `retry_after_ms` when longer, or a failing webhook's booked turn when later still. The attempt can come later when it must take a failing webhook's turn then (docs/fairness.md). null after a success or a final attempt, and for attempts recorded before this field existed",
    }),
    request_headers: z.record(z.string(), z.string()).nullable().meta({
      description:
        'Extension: the headers the attempt sent, each signature replaced by "(redacted)"; null for an attempt that was not sent, or recorded before this field existed',
    }),
  })
  .meta({ id: 'Delivery' });

export const rotateAnswer = z.object({
  secret: z.string().meta({ description: 'The new secret: the only answer that ever carries one' }),
  previous_secret_expires_at: timestamp.nullable(),
  webhook,
});

export const recoverAnswer = z.object({
  events: z.int().meta({ description: 'Events queued to be sent again' }),
  already_recovering: z.int().meta({ description: 'Extension: events being re-sent already' }),
});

export const newTenant = z.object({ tenant_id: z.int(), api_key: z.string() });
export const revokedKey = z.object({ tenant_id: z.int(), prefix: z.string(), revoked_at: timestamp });

export const readiness = z.object({
  status: z.enum(['ready', 'not ready']),
  database: z.boolean(),
  temporal: z.boolean(),
  reasons: z
    .object({
      database: z.string().optional().meta({
        description: 'Why PostgreSQL is not ready: it does not answer, or it refuses new sessions (its message)',
      }),
      temporal: z.string().optional().meta({
        description:
          "Why Temporal is not ready: its frontend does not answer, or its namespace lacks search attributes the workflows set (each named, with the server's refusal; docs/operations.md)",
      }),
    })
    .optional()
    .meta({ description: 'Extension: why a dependency is not ready, when it can be said' }),
});

const labelQuality = z
  .object({
    precision: z.number(),
    recall: z.number(),
    f1: z.number(),
    folds: z.int(),
    examples: z.int(),
    matching: z.int(),
    warning: z.string().nullable(),
  })
  .meta({
    id: 'LabelQuality',
    description: "Cross-validated on the ready version's own examples (out-of-fold scores); docs/labels.md",
  });

export const label = z
  .object({
    name: z.string(),
    description: z.string(),
    state: z.enum(['training', 'ready', 'failed']).meta({ description: "The latest version's state" }),
    failure_reason: z.string().nullable(),
    version: z.int().meta({ description: 'The latest example set: 1, then + 1 at each change' }),
    ready_version: z
      .int()
      .nullable()
      .meta({ description: 'The version that scores messages now; null until one trained' }),
    examples_count: z.int(),
    matching_examples: z.int(),
    quality: labelQuality.nullable(),
    backfill: z
      .object({
        version: z.int(),
        state: z.enum(['waiting', 'running', 'done']),
        users_done: z.int(),
        users_total: z.int(),
        done_at: timestamp.nullable(),
      })
      .nullable()
      .meta({ description: "The ready version scoring the project's stored messages, and how far it got" }),
    examples: z
      .array(z.object({ text: z.string(), match: z.boolean() }))
      .optional()
      .meta({ description: 'The latest example set (not in the list)' }),
    created_at: timestamp,
    updated_at: timestamp,
    trained_at: timestamp.nullable(),
  })
  .meta({ id: 'Label' });

export const classification = z
  .object({
    label: z.string(),
    version: z.int(),
    threshold: z.number(),
    results: z.array(z.object({ score: z.number(), match: z.boolean() })),
  })
  .meta({ id: 'Classification', description: "Each text's score (0 to 1) and match, in the order sent" });

export const apiKey = z
  .object({
    id: z.string().meta({ description: 'The key id (a UUID), unique across deployments' }),
    name: z.string(),
    prefix: z.string().meta({ description: "The secret's first 8 characters" }),
    scopes: z.array(z.string()),
    projects: z
      .array(z.int())
      .nullable()
      .meta({ description: 'The projects the key is limited to; null: every project of the tenant' }),
    created_by: z.string().meta({ description: '`admin`, or the prefix of the key that made it' }),
    created_at: timestamp,
    last_used_at: timestamp.nullable().meta({ description: 'Right to within a minute; null: never used' }),
    expires_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });

export const newApiKey = apiKey
  .extend({ api_key: z.string().meta({ description: 'The secret (`sps_…`): shown this once, stored only as a hash' }) })
  .meta({ id: 'NewApiKey' });

export const apiKeyEvent = z
  .object({
    id: z.string(),
    action: z.enum(['created', 'revoked']),
    key_id: z.string(),
    key_prefix: z.string(),
    key_name: z.string(),
    actor: z.string().meta({ description: "`admin`, or the acting key's prefix" }),
    at: timestamp,
  })
  .meta({ id: 'ApiKeyEvent' });
