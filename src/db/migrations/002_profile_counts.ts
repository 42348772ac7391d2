import type { Knex } from 'knex';

/**
 * The profile list answers with an exact `total`. Counting a million rows per request costs tens of
 * milliseconds, so statement triggers on `users` keep a summary of profiles per project by
 * (sentiment_trend, churn bin of 0.01, message-count bin capped at 21) as insert-only delta rows
 * (no hot counter rows to fight over); src/profiles/profile-counts.ts sums the bins a filter fully
 * covers and counts only the rows of the bins at the filter's edges. The list indexes carry the
 * filter columns so pages and edge counts are index-only scans.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION profile_churn_bin(score double precision) RETURNS smallint
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT CASE WHEN score IS NULL THEN -1 ELSE floor(score * 100)::smallint END $$;
    CREATE FUNCTION profile_msg_bin(n integer) RETURNS smallint
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT least(n, 21)::smallint $$;

    CREATE TABLE profile_counts (
      project_id bigint NOT NULL,
      sentiment_trend text NOT NULL,
      churn_bin smallint NOT NULL,
      msg_bin smallint NOT NULL,
      delta bigint NOT NULL
    );
    CREATE INDEX profile_counts_project ON profile_counts (project_id, sentiment_trend, churn_bin, msg_bin);

    CREATE FUNCTION profile_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO profile_counts (project_id, sentiment_trend, churn_bin, msg_bin, delta)
      SELECT project_id, coalesce(sentiment_trend, ''), profile_churn_bin(churn_risk_score), profile_msg_bin(message_count), count(*)
      FROM new_rows WHERE aggregates IS NOT NULL GROUP BY 1, 2, 3, 4;
      RETURN NULL;
    END $$;
    CREATE FUNCTION profile_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO profile_counts (project_id, sentiment_trend, churn_bin, msg_bin, delta)
      SELECT project_id, trend, cb, mb, sum(d) FROM (
        SELECT project_id, coalesce(sentiment_trend, '') AS trend, profile_churn_bin(churn_risk_score) AS cb,
               profile_msg_bin(message_count) AS mb, 1 AS d
        FROM new_rows WHERE aggregates IS NOT NULL
        UNION ALL
        SELECT project_id, coalesce(sentiment_trend, ''), profile_churn_bin(churn_risk_score), profile_msg_bin(message_count), -1
        FROM old_rows WHERE aggregates IS NOT NULL
      ) changes GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0;
      RETURN NULL;
    END $$;
    CREATE FUNCTION profile_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO profile_counts (project_id, sentiment_trend, churn_bin, msg_bin, delta)
      SELECT project_id, coalesce(sentiment_trend, ''), profile_churn_bin(churn_risk_score), profile_msg_bin(message_count), -count(*)
      FROM old_rows WHERE aggregates IS NOT NULL GROUP BY 1, 2, 3, 4;
      RETURN NULL;
    END $$;
    CREATE TRIGGER users_counts_inserted AFTER INSERT ON users
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION profile_counts_inserted();
    CREATE TRIGGER users_counts_updated AFTER UPDATE ON users
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION profile_counts_updated();
    CREATE TRIGGER users_counts_deleted AFTER DELETE ON users
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION profile_counts_deleted();

    INSERT INTO profile_counts (project_id, sentiment_trend, churn_bin, msg_bin, delta)
    SELECT project_id, coalesce(sentiment_trend, ''), profile_churn_bin(churn_risk_score), profile_msg_bin(message_count), count(*)
    FROM users WHERE aggregates IS NOT NULL GROUP BY 1, 2, 3, 4;

    -- Covering list indexes: the page's ids and the edge counts come from the index alone.
    DROP INDEX users_list, users_trend, users_churn, users_messages;
    CREATE INDEX users_list ON users (project_id, updated_at DESC, user_id)
      INCLUDE (id, churn_risk_score, sentiment_trend, message_count) WHERE aggregates IS NOT NULL;
    CREATE INDEX users_trend ON users (project_id, sentiment_trend, updated_at DESC, user_id)
      INCLUDE (id, churn_risk_score, message_count) WHERE aggregates IS NOT NULL;
    CREATE INDEX users_churn ON users (project_id, churn_risk_score)
      INCLUDE (id, updated_at, user_id, sentiment_trend, message_count) WHERE aggregates IS NOT NULL;
    CREATE INDEX users_messages ON users (project_id, message_count)
      INCLUDE (id, updated_at, user_id, sentiment_trend, churn_risk_score) WHERE aggregates IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS users_counts_inserted ON users;
    DROP TRIGGER IF EXISTS users_counts_updated ON users;
    DROP TRIGGER IF EXISTS users_counts_deleted ON users;
    DROP FUNCTION IF EXISTS profile_counts_inserted(), profile_counts_updated(), profile_counts_deleted();
    DROP TABLE IF EXISTS profile_counts;
    DROP INDEX IF EXISTS users_list, users_trend, users_churn, users_messages;
    CREATE INDEX users_list ON users (project_id, updated_at DESC, user_id) WHERE aggregates IS NOT NULL;
    CREATE INDEX users_trend ON users (project_id, sentiment_trend, updated_at DESC, user_id) WHERE aggregates IS NOT NULL;
    CREATE INDEX users_churn ON users (project_id, churn_risk_score) WHERE aggregates IS NOT NULL;
    CREATE INDEX users_messages ON users (project_id, message_count) WHERE aggregates IS NOT NULL;
    DROP FUNCTION IF EXISTS profile_churn_bin(double precision), profile_msg_bin(integer);
  `);
}
