#!/bin/sh
# One-shot job in temporalio/admin-tools: Temporal's two databases on the shared PostgreSQL, owned
# by its own role (created by docker/postgres-init.sh), then their schemas set up or migrated by
# the sql tool (its schemas are embedded). Every step is idempotent: the job runs on every `up`.
set -eu
tool() {
  temporal-sql-tool --plugin postgres12 --ep postgres -p 5432 -u temporal --pw "$TEMPORAL_DB_PASSWORD" "$@"
}
until tool --db postgres create-database --db temporal 2>/dev/null; do
  echo "waiting for PostgreSQL"
  sleep 2
done
tool --db temporal_visibility create-database
tool --db temporal setup-schema -v 0.0
tool --db temporal update-schema --schema-name postgresql/v12/temporal
tool --db temporal_visibility setup-schema -v 0.0
tool --db temporal_visibility update-schema --schema-name postgresql/v12/visibility
