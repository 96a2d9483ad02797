#!/usr/bin/env bash
# Run the whole suite against the real PostgreSQL and Redis (never SQLite).
set -euo pipefail
PY=${PY:-.venv/bin/python}
export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
export REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/0}
if command -v msgfmt >/dev/null 2>&1 && compgen -G "locale/*/LC_MESSAGES/*.po" >/dev/null; then
  "$PY" manage.py compilemessages --ignore=.venv -v 0
fi
exec "$PY" -m pytest "$@"
