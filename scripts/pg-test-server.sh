#!/usr/bin/env bash
# A throw-away PostgreSQL server for the outbox tests and benchmarks, from this machine's PostgreSQL
# installation: a fresh data directory under $TMPDIR, listening on 127.0.0.1 on a free port.
#
#   scripts/pg-test-server.sh start        prints the connection URL (postgres://postgres@127.0.0.1:PORT/postgres)
#   scripts/pg-test-server.sh stop URL     stops that server and deletes its data directory
#   scripts/pg-test-server.sh pause URL    stops that server at once, keeping its data (a crash)
#   scripts/pg-test-server.sh resume URL   starts a paused server again on its port
#
# PGBIN names the directory of initdb and pg_ctl (default: the newest /usr/lib/postgresql/*/bin).
# initdb refuses to run as root, so as root the server runs as the postgres user. Exits 3 when no
# PostgreSQL is installed.
set -euo pipefail

pgbin="${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"
if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ]; then
  echo "no PostgreSQL installation found (set PGBIN to the directory of initdb and pg_ctl)" >&2
  exit 3
fi
as_owner=()
if [ "$(id -u)" = 0 ]; then as_owner=(runuser -u postgres --); fi
tmp="${TMPDIR:-/tmp}"

case "${1:-}" in
  start)
    port="$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
    dir="$tmp/idgov-pg-$port"
    rm -rf "$dir" && mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
    "${as_owner[@]}" "$pgbin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync > "$dir/initdb.log"
    "${as_owner[@]}" "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=100" start > /dev/null
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    port="$(echo "${2:?usage: $0 stop URL}" | sed -E 's#.*:([0-9]+)/.*#\1#')"
    dir="$tmp/idgov-pg-$port"
    if [ -d "$dir/data" ]; then
      "${as_owner[@]}" "$pgbin/pg_ctl" -D "$dir/data" -m immediate -w stop > /dev/null || true
    fi
    rm -rf "$dir"
    ;;
  pause|resume)
    port="$(echo "${2:?usage: $0 $1 URL}" | sed -E 's#.*:([0-9]+)/.*#\1#')"
    dir="$tmp/idgov-pg-$port"
    if [ "$1" = pause ]; then
      "${as_owner[@]}" "$pgbin/pg_ctl" -D "$dir/data" -m immediate -w stop > /dev/null
    else
      "${as_owner[@]}" "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=100" start > /dev/null
    fi
    ;;
  *)
    echo "usage: $0 start | stop URL | pause URL | resume URL" >&2
    exit 2
    ;;
esac
