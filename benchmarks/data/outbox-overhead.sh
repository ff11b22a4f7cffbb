#!/usr/bin/env bash
# Outbox write overhead on PostgreSQL: a service's write (one row inserted and committed) with its change appended
# to unitas's transactional outbox in the same transaction, against the same write without it. Goal: ≤ 1.3×.
# Starts its own PostgreSQL on a free port (never the machine's default server) with production durability
# (fsync and synchronous_commit on; pass "fast" to turn both off and see the statements' cost alone), runs the JMH
# benchmark OutboxWriteBenchmark, prints each side's mean and the ratio.
#   usage: benchmarks/data/outbox-overhead.sh [durable|fast] [JMH options...]      (default durable)
#   a quick check that it runs (not a measurement): benchmarks/data/outbox-overhead.sh fast -wi 1 -i 1 -w 1 -r 1
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mode="${1:-durable}"
[[ "$mode" == durable || "$mode" == fast ]] || { echo "usage: $0 [durable|fast] [JMH options...]" >&2; exit 2; }
shift $(( $# > 0 ? 1 : 0 ))
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[[ -x "$bin/initdb" ]] || { echo "$0: no PostgreSQL server under /usr/lib/postgresql (install Debian's postgresql)" >&2; exit 1; }
as_pg=()
[[ "$(id -u)" == 0 ]] && as_pg=(runuser -u postgres --)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

work="$(mktemp -d /tmp/unitas-outbox-bench-XXXX)"
chmod 755 "$work"
[[ "$(id -u)" == 0 ]] && chown postgres: "$work"
port="$(free_port)"
cleanup() {
  "${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

"${as_pg[@]}" "$bin/initdb" -D "$work/data" -U postgres -A trust -E UTF8 --locale=C >/dev/null
{
  echo "port = $port"
  echo "listen_addresses = '127.0.0.1'"
  echo "unix_socket_directories = '$work'"
  if [[ "$mode" == fast ]]; then echo "fsync = off"; echo "synchronous_commit = off"; fi
} >>"$work/data/postgresql.conf"
"${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -l "$work/pg.log" -w start >/dev/null
"$bin/psql" -qAtX -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE bench" >/dev/null

cd "$root"
[[ -f benchmarks/jmh/target/benchmarks.jar ]] || mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests
java ${JAVA_OPTS:-} -jar benchmarks/jmh/target/benchmarks.jar OutboxWriteBenchmark \
  -p url="jdbc:postgresql://127.0.0.1:$port/bench?user=postgres" -rf json -rff "$work/result.json" "$@" >"$work/jmh.log"

python3 - "$work/result.json" "$mode" <<'PY'
import json, sys
results = {r["benchmark"].rsplit(".", 1)[1]: r["primaryMetric"] for r in json.load(open(sys.argv[1]))}
without, with_ = results["writeWithoutOutbox"], results["writeWithOutbox"]
ratio = with_["score"] / without["score"]
def err(m):  # NaN (a string in JMH's JSON) with a single iteration
    return f" ± {m['scoreError']:.1f}" if isinstance(m["scoreError"], (int, float)) else ""
print(f"PostgreSQL ({sys.argv[2]}), one row per transaction, JMH average time per write:")
print(f"  without outbox  {without['score']:9.1f}{err(without)} µs/op")
print(f"  with outbox     {with_['score']:9.1f}{err(with_)} µs/op")
print(f"  ratio           {ratio:9.2f}x   (goal: <= 1.3x: {'met' if ratio <= 1.3 else 'NOT met'})")
PY
