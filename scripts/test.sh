#!/usr/bin/env bash
# Run the whole suite against the real PostgreSQL and Redis (never SQLite).
set -euo pipefail
PY=${PY:-.venv/bin/python}
export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
export REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/0}
# The committed .mo catalogues are what the product serves; a test checks each matches its .po
# (tests/memory/test_translations.py), so nothing is compiled here to hide a stale one.
exec "$PY" -m pytest "$@"
