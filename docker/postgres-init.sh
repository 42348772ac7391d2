#!/bin/sh
# Runs once, when the postgres volume is created: Temporal gets a role of its own (it creates its
# databases in temporal-setup.sh); the service keeps the `profiling` database and its own user.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v pwd="$TEMPORAL_DB_PASSWORD" <<'SQL'
CREATE ROLE temporal LOGIN CREATEDB PASSWORD :'pwd';
SQL
