#!/usr/bin/env bash
# Outbox write overhead on PostgreSQL: a service's write (one row inserted and committed) with its change appended
# to unitas's transactional outbox in the same transaction, against the same write without it. Goal: ≤ 1.3×.
# Starts its own PostgreSQL on a free port (never the machine's default server) with production durability
# (fsync and synchronous_commit on; pass "fast" to turn both off and see the statements' cost alone), runs the JMH
# benchmark OutboxWriteBenchmark, prints each way's mean and its ratio to the write without the outbox: the write and
# its change in one statement (Outbox.writeAndAppend, one round trip), and the write followed by Outbox.append (two).
#   usage: benchmarks/data/outbox-overhead.sh [durable|fast] [JMH options...]      (default durable)
#   a quick check that it runs (not a measurement): benchmarks/data/outbox-overhead.sh fast -wi 1 -i 1 -w 1 -r 1
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ "${1:-}" == --help || "${1:-}" == -h ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
mode="${1:-durable}"
[[ "$mode" == durable || "$mode" == fast ]] || { echo "usage: $0 [durable|fast] [JMH options...]" >&2; exit 2; }
shift $(( $# > 0 ? 1 : 0 ))
source "$here/postgres.sh"
pg_setup
pg_start outbox "$mode"
port="$pg_port"

cd "$root"
[[ -f benchmarks/jmh/target/benchmarks.jar ]] || mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests
java ${JAVA_OPTS:-} -jar benchmarks/jmh/target/benchmarks.jar OutboxWriteBenchmark \
  -p url="jdbc:postgresql://127.0.0.1:$port/bench?user=postgres" -rf json -rff "$work/result.json" "$@" >"$work/jmh.log"

python3 - "$work/result.json" "$mode" <<'PY'
import json, sys
results = {r["benchmark"].rsplit(".", 1)[1]: r["primaryMetric"] for r in json.load(open(sys.argv[1]))}
without = results["writeWithoutOutbox"]
def err(m):  # NaN (a string in JMH's JSON) with a single iteration
    return f" ± {m['scoreError']:.1f}" if isinstance(m["scoreError"], (int, float)) else ""
print(f"PostgreSQL ({sys.argv[2]}), one row per transaction, JMH average time per write:")
print(f"  {'without outbox':<44} {without['score']:9.1f}{err(without)} µs/op")
for name, label in (("writeAndAppendInOneStatement", "with outbox, one statement (writeAndAppend)"),
                    ("writeWithOutbox", "with outbox, write then append")):
    if name not in results:
        continue
    with_ = results[name]
    ratio = with_["score"] / without["score"]
    print(f"  {label:<44} {with_['score']:9.1f}{err(with_)} µs/op   ratio {ratio:5.2f}x"
          f"   (goal: <= 1.3x: {'met' if ratio <= 1.3 else 'NOT met'})")
PY
