#!/usr/bin/env bash
# Serve Whizi (ASGI, for streamed replies) with a Celery worker and beat beside it.
# Memory passes only ever run in the worker, never inside a request.
set -euo pipefail
PY=${PY:-.venv/bin/python}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/0}
mkdir -p var
# The web and the worker count their metrics into one directory, so /metrics (with
# WHIZI_METRICS_TOKEN set) shows both; emptied at each start, as Prometheus's client asks.
if [[ -z "${PROMETHEUS_MULTIPROC_DIR:-}" ]]; then
  export PROMETHEUS_MULTIPROC_DIR="$PWD/var/metrics"
  rm -rf "$PROMETHEUS_MULTIPROC_DIR"
fi
mkdir -p "$PROMETHEUS_MULTIPROC_DIR"

redis_up() { "$PY" -c "import redis,sys; redis.Redis.from_url('$REDIS_URL', socket_connect_timeout=1).ping()" 2>/dev/null; }
if ! redis_up; then
  if command -v redis-server >/dev/null 2>&1 && [[ "$REDIS_URL" == redis://127.0.0.1:6379* ]]; then
    echo "Redis is not running: starting a local one for Whizi (var/redis.log)"
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
      --dir "$PWD/var" --logfile "$PWD/var/redis.log"
    sleep 1
  else
    echo "WARNING: Redis at $REDIS_URL is not reachable. Chat works; memory passes stay" >&2
    echo "queued in the database until the worker can reach Redis." >&2
  fi
fi

# The worker's pool: prefork (processes, the default), or threads when passes mostly
# wait on a hosted memory model. Concurrency is processes or threads: passes run at once.
# (Not gevent: with litellm's HTTP path, Django refuses the passes' database calls.)
POOL=${WHIZI_WORKER_POOL:-prefork}
CONCURRENCY=${WHIZI_WORKER_CONCURRENCY:-2}
case "$POOL" in
  prefork|threads) ;;
  *) echo "WHIZI_WORKER_POOL must be prefork or threads (got '$POOL')" >&2; exit 2 ;;
esac
if ! [[ "$CONCURRENCY" =~ ^[1-9][0-9]*$ ]]; then
  echo "WHIZI_WORKER_CONCURRENCY must be a whole number from 1 (got '$CONCURRENCY')" >&2
  exit 2
fi

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

"$PY" -m celery -A whizi worker --loglevel=INFO --pool="$POOL" --concurrency="$CONCURRENCY" --beat \
  --schedule var/celerybeat-schedule >var/worker.log 2>&1 &
pids+=($!)
echo "Celery worker started: $POOL pool, concurrency $CONCURRENCY (log: var/worker.log)"
echo "Whizi: http://$HOST:$PORT/"
# Whizi logs each request itself, with its id (whizi.logs): no second access line.
"$PY" -m uvicorn whizi.asgi:application --host "$HOST" --port "$PORT" --no-access-log &
pids+=($!)
wait -n "${pids[@]}"
