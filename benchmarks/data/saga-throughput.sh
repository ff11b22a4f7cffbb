#!/usr/bin/env bash
# Saga overhead on PostgreSQL: 2-step sagas whose steps each apply one write once, against the same two writes
# without a saga, and 2-step sagas whose steps do nothing (the coordinator's own writes). Prints each way's mean, the
# sagas per second of all threads (goal: >= 500/s), and the cost per step (the saga's time less the plain writes',
# halved); -t N runs N threads on one coordinator. Starts its own PostgreSQL on a free port (never the machine's
# default server) with production durability (fsync and synchronous_commit on; pass "fast" to turn both off and see
# the statements' cost alone).
#   usage: benchmarks/data/saga-throughput.sh [durable|fast] [JMH options...]      (default durable)
#   a quick check that it runs (not a measurement): benchmarks/data/saga-throughput.sh fast -wi 1 -i 1 -w 1 -r 1
#   BENCH_JAR=path runs another build's benchmarks.jar (before and after a change, alternately, on the same machine)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ "${1:-}" == --help || "${1:-}" == -h ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
mode="${1:-durable}"
[[ "$mode" == durable || "$mode" == fast ]] || { echo "usage: $0 [durable|fast] [JMH options...]" >&2; exit 2; }
shift $(( $# > 0 ? 1 : 0 ))
source "$here/postgres.sh"
pg_setup
pg_start saga "$mode"
port="$pg_port"

jar="$(realpath -m "${BENCH_JAR:-$root/benchmarks/jmh/target/benchmarks.jar}")"
cd "$root"
[[ -n "${BENCH_JAR:-}" || -f "$jar" ]] || mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests
[[ -f "$jar" ]] || { echo "$0: BENCH_JAR: $jar: no such file" >&2; exit 2; }
java ${JAVA_OPTS:-} -jar "$jar" SagaBenchmark \
  -p url="jdbc:postgresql://127.0.0.1:$port/bench?user=postgres" -rf json -rff "$work/result.json" "$@" >"$work/jmh.log" \
  || { tail -40 "$work/jmh.log" >&2; exit 1; }

python3 - "$work/result.json" "$mode" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))
results = {r["benchmark"].rsplit(".", 1)[1]: r["primaryMetric"] for r in runs}
threads = runs[0]["threads"]
def err(m):  # NaN (a string in JMH's JSON) with a single iteration
    return f" ± {m['scoreError']:.1f}" if isinstance(m["scoreError"], (int, float)) else ""
plain = results["twoWritesWithoutSaga"]["score"]
print(f"PostgreSQL ({sys.argv[2]}), {threads} thread(s), JMH average time per operation and one thread:")
for name, label in (("twoWritesWithoutSaga", "two writes, no saga"),
                    ("sagaOfTwoNothings", "2-step saga, steps do nothing"),
                    ("sagaOfTwoWrites", "2-step saga, one write per step")):
    m = results[name]
    print(f"  {label:<34} {m['score']:9.1f}{err(m)} µs/op   {threads * 1e6 / m['score']:8.0f} /s in all")
saga = results["sagaOfTwoWrites"]["score"]
print(f"  cost per step (saga less plain writes, halved): {(saga - plain) / 2:.1f} µs")
rate = threads * 1e6 / saga
print(f"  2-step sagas per second: {rate:.0f} (goal: >= 500: {'met' if rate >= 500 else 'NOT met'})")
PY
