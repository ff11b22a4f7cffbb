#!/usr/bin/env bash
# Detection time of the seed incident: from a PostgreSQL primary turning read-only
# (ALTER SYSTEM SET default_transaction_read_only = on; SELECT pg_reload_conf()) to `unitas health serve`'s
# /readyz answering 503, with the default interval (500ms), timeout (1s) and thresholds (fall 2, rise 2).
# Starts its own PostgreSQL cluster on a free port (never touches the machine's default server), runs the real
# launcher, repeats the incident, prints each run and the median, min and max in milliseconds.
#   usage: benchmarks/health/detection.sh [runs]      (default 10)
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then  # the comment above, without its marks
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${1:-10}"
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
as_pg=()
[[ "$(id -u)" == 0 ]] && as_pg=(runuser -u postgres --)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
now_ms() { date +%s%3N; }
readyz() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http/readyz" || true; }
sql() { # each statement on its own: ALTER SYSTEM cannot run inside a transaction block
  local args=()
  for s in "$@"; do args+=(-c "$s"); done
  "$bin/psql" -qAtX -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres "${args[@]}" >/dev/null
}

work="$(mktemp -d /tmp/unitas-detection-XXXX)"
chmod 755 "$work"
[[ "$(id -u)" == 0 ]] && chown postgres: "$work"
pg_port="$(free_port)"; http="$(free_port)"; grpc="$(free_port)"
agent=""
cleanup() {
  [[ -n "$agent" ]] && kill "$agent" 2>/dev/null && wait "$agent" 2>/dev/null || true
  "${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

"${as_pg[@]}" "$bin/initdb" -D "$work/data" -U postgres -A trust --no-sync >/dev/null
cat >>"$work/data/postgresql.conf" <<CONF
port = $pg_port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work'
fsync = off
CONF
"${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -l "$work/pg.log" -w start >/dev/null

cat >"$work/health.yaml" <<YAML
region: cn
listen: {address: 127.0.0.1, http: $http, grpc: $grpc}
checks:
  - name: pg-primary
    kind: postgres
    target: postgresql://postgres@127.0.0.1:$pg_port/postgres
    role: primary
YAML
"$root/unitas" health serve --config "$work/health.yaml" >"$work/agent.log" 2>&1 &
agent=$!

wait_for() { # status, limit in seconds
  local deadline=$(( $(now_ms) + $2 * 1000 ))
  until [[ "$(readyz)" == "$1" ]]; do
    (( $(now_ms) < deadline )) || { echo "no /readyz $1 within $2 s" >&2; cat "$work/agent.log" >&2; exit 1; }
    sleep 0.01
  done
}
wait_for 200 300

times=()
for ((i = 1; i <= runs; i++)); do
  wait_for 200 30
  sleep 1
  start=$(now_ms)
  sql "ALTER SYSTEM SET default_transaction_read_only = on" "SELECT pg_reload_conf()"
  wait_for 503 30
  t=$(( $(now_ms) - start ))
  times+=("$t")
  echo "run $i: ${t} ms"
  sql "ALTER SYSTEM RESET default_transaction_read_only" "SELECT pg_reload_conf()"
done

printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END {
  m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
  printf "detection time over %d runs: median %d ms, min %d ms, max %d ms\n", NR, m, a[1], a[NR] }'
