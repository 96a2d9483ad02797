#!/usr/bin/env bash
# Make sure what the test suite talks to is here and running: PostgreSQL on
# 127.0.0.1:5432 (trust auth), Redis on 127.0.0.1:6379, Debian's Chromium for the
# browser tests and gettext for compilemessages. Installs with apt-get what is missing.
set -euo pipefail

need_root() { [ "$(id -u)" = 0 ] || { echo "ensure_services: $1 missing and not root to install it" >&2; exit 1; }; }
apt_updated=""
apt_install() {
  need_root "$*"
  if [ -z "$apt_updated" ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# PostgreSQL
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  apt_install postgresql
fi
if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  conf=/etc/postgresql/$version/main
  # Trust auth on loopback, as the suite expects.
  if ! grep -q "whizi-trust" "$conf/pg_hba.conf" 2>/dev/null; then
    sed -i '1i host all all 127.0.0.1/32 trust # whizi-trust\nhost all all ::1/128 trust # whizi-trust\nlocal all all trust # whizi-trust' "$conf/pg_hba.conf"
  fi
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
pg_isready -h 127.0.0.1 -p 5432

# Redis
if ! command -v redis-server >/dev/null 2>&1; then
  apt_install redis-server
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.5; done
fi
redis-cli -h 127.0.0.1 -p 6379 ping

# Chromium for the browser tests (with CJK fonts, so screenshots of the Japanese, Chinese
# and Korean pages are legible), gettext for compilemessages.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -d /usr/share/fonts/opentype/noto ] || missing+=(fonts-noto-cjk)
command -v msgfmt >/dev/null 2>&1 || missing+=(gettext)
if [ ${#missing[@]} -gt 0 ]; then
  apt_install "${missing[@]}"
fi
