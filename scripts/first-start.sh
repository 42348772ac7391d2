#!/usr/bin/env bash
# Times a first start as a new user sees it (docs/performance.md#other-figures): `npm start` on an
# empty data folder until it says ready, one message until its profile exists, then Ctrl-C (SIGINT
# to the process group, as a terminal sends it) until every process is gone. Ports: the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=$(mktemp -d)
chmod 755 "$DATA"
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
START=$(now)
DATA_DIR="$DATA" setsid npm start >"$DATA/start.log" 2>&1 &
GROUP=$!
trap 'kill -KILL -"$GROUP" 2>/dev/null || true; rm -rf "$DATA"' EXIT
until grep -q '"msg":"ready"\|ready in' "$DATA/start.log"; do
  kill -0 "$GROUP" 2>/dev/null || { cat "$DATA/start.log"; exit 1; }
  sleep 0.2
done
READY=$(now)
echo "ready after $(echo "$READY - $START" | bc) s"
KEY=$(node -e "console.log(require('$DATA/demo.json').api_key)")
PROJECT=$(node -e "console.log(require('$DATA/demo.json').project_id)")
curl -sf -H "X-API-Key: $KEY" -H 'Content-Type: application/json' http://localhost:8080/api/v1/users \
  -d "{\"project_id\": $PROJECT, \"users\": [{\"user_id\": \"first\", \"text\": \"The export keeps failing and nobody answers my tickets.\"}]}" >/dev/null
until curl -sf -H "X-API-Key: $KEY" "http://localhost:8080/api/v1/profiles/first?project_id=$PROJECT" >/dev/null; do sleep 0.2; done
echo "first message analysed $(since "$READY") s after ready"
STOP=$(now)
kill -INT -"$GROUP"
while pgrep -g "$GROUP" >/dev/null; do sleep 0.1; done
echo "Ctrl-C: every process gone after $(since "$STOP") s"
