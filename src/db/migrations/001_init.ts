import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE tenants (
      id bigserial PRIMARY KEY,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    -- API keys are stored as SHA-256 hashes; the clear key is shown once at creation.
    CREATE TABLE api_keys (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      key_hash text NOT NULL UNIQUE,
      prefix text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    );

    CREATE TABLE projects (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX projects_tenant ON projects (tenant_id, id);

    CREATE TABLE pipelines (
      id bigserial PRIMARY KEY,
      project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX pipelines_project ON pipelines (project_id, id);

    CREATE TABLE segments (
      pk bigserial PRIMARY KEY,
      pipeline_id bigint NOT NULL REFERENCES pipelines(id) ON DELETE CASCADE,
      project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      slug text NOT NULL,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      rule jsonb NOT NULL,
      status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'deployed')),
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (pipeline_id, slug)
    );
    CREATE INDEX segments_deployed ON segments (project_id) WHERE status = 'deployed';

    -- One row per submission; workflow_started_at stays NULL until its workflow is known to run,
    -- so the relay can start batches that were stored while Temporal was away.
    CREATE TABLE sources (
      id bigserial PRIMARY KEY,
      project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      label text NOT NULL,
      user_count integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      workflow_started_at timestamptz,
      completed_at timestamptz,
      processed integer,
      failed integer
    );
    CREATE INDEX sources_unstarted ON sources (id) WHERE workflow_started_at IS NULL;

    -- The raw batch, stored before the 202 so nothing accepted is lost.
    CREATE TABLE source_items (
      source_id bigint NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
      idx integer NOT NULL,
      user_id text NOT NULL,
      text text NOT NULL,
      attributes jsonb NOT NULL DEFAULT '{}',
      written_at timestamptz NOT NULL,
      error text,
      PRIMARY KEY (source_id, idx)
    );

    -- A user of a project and the aggregates of their profile. The filter columns are copies of
    -- fields in aggregates so the profile list is served by indexes.
    CREATE TABLE users (
      id bigserial PRIMARY KEY,
      project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      user_id text NOT NULL,
      attributes jsonb NOT NULL DEFAULT '{}',
      source_label text NOT NULL,
      last_source_id bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      message_count integer NOT NULL DEFAULT 0,
      churn_risk_score double precision,
      sentiment_trend text,
      aggregates jsonb,
      profile_embedding real[],
      UNIQUE (project_id, user_id)
    );
    CREATE INDEX users_list ON users (project_id, updated_at DESC, user_id) WHERE aggregates IS NOT NULL;
    CREATE INDEX users_trend ON users (project_id, sentiment_trend, updated_at DESC, user_id) WHERE aggregates IS NOT NULL;
    CREATE INDEX users_churn ON users (project_id, churn_risk_score) WHERE aggregates IS NOT NULL;
    CREATE INDEX users_messages ON users (project_id, message_count) WHERE aggregates IS NOT NULL;

    CREATE TABLE messages (
      id bigserial PRIMARY KEY,
      user_pk bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      source_id bigint NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
      item_idx integer NOT NULL,
      written_at timestamptz NOT NULL,
      source_label text NOT NULL,
      text text NOT NULL,
      sentiment double precision NOT NULL,
      topics text[] NOT NULL,
      intentions text[] NOT NULL,
      embedding real[] NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      -- One message per submitted item: a retried activity cannot add it twice.
      UNIQUE (source_id, item_idx)
    );
    CREATE INDEX messages_timeline ON messages (user_pk, written_at DESC, id DESC);

    -- Current membership and the per-user-and-segment event sequence (kept after leaving).
    CREATE TABLE segment_memberships (
      segment_pk bigint NOT NULL REFERENCES segments(pk) ON DELETE CASCADE,
      user_pk bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      is_member boolean NOT NULL,
      score double precision NOT NULL,
      seq integer NOT NULL,
      changed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (segment_pk, user_pk)
    );
    CREATE INDEX segment_members ON segment_memberships (segment_pk, user_pk) WHERE is_member;

    CREATE TABLE events (
      id bigserial PRIMARY KEY,
      project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      pipeline_id bigint NOT NULL REFERENCES pipelines(id) ON DELETE CASCADE,
      segment_pk bigint REFERENCES segments(pk) ON DELETE SET NULL,
      segment_slug text NOT NULL,
      segment_name text NOT NULL,
      user_pk bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      user_id text NOT NULL,
      event_type text NOT NULL CHECK (event_type IN ('user_added', 'user_removed')),
      score double precision NOT NULL,
      seq integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (segment_pk, user_pk, seq)
    );

    CREATE TABLE webhooks (
      id bigserial PRIMARY KEY,
      pipeline_id bigint NOT NULL REFERENCES pipelines(id) ON DELETE CASCADE,
      url text NOT NULL,
      -- AES-256-GCM sealed with SECRETS_KEY; never returned.
      secret_sealed text,
      events text[] NOT NULL,
      is_active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhooks_pipeline ON webhooks (pipeline_id, id);

    CREATE TABLE webhook_deliveries (
      id bigserial PRIMARY KEY,
      event_id bigint NOT NULL REFERENCES events(id) ON DELETE CASCADE,
      webhook_id bigint NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      attempt integer NOT NULL,
      -- <workflow id>:<attempt>; makes a retried activity write its row once.
      attempt_key text NOT NULL UNIQUE,
      status text NOT NULL CHECK (status IN ('success', 'failed')),
      status_code integer NOT NULL,
      response_body text NOT NULL,
      duration_ms integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX deliveries_webhook ON webhook_deliveries (webhook_id, id DESC);

    CREATE TABLE outbox (
      id bigserial PRIMARY KEY,
      event_id bigint NOT NULL REFERENCES events(id) ON DELETE CASCADE,
      webhook_id bigint NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      dispatched_at timestamptz,
      UNIQUE (event_id, webhook_id)
    );
    CREATE INDEX outbox_pending ON outbox (id) WHERE dispatched_at IS NULL;

    CREATE TABLE idempotency_keys (
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      key text NOT NULL,
      response jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, key)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS idempotency_keys, outbox, webhook_deliveries, webhooks, events, segment_memberships,
      messages, users, source_items, sources, segments, pipelines, projects, api_keys, tenants CASCADE;
  `);
}
