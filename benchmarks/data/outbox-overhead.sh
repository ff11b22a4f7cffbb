#!/usr/bin/env bash
# Outbox write overhead on PostgreSQL: a service's write (one row inserted and committed) with its change appended
# to unitas's transactional outbox in the same transaction, against the same write without it. Goal: ≤ 1.3×.
# Starts its own PostgreSQL on a free port (never the machine's default server) with production durability
# (fsync and synchronous_commit on; pass "fast" to turn both off and see the statements' cost alone), runs the JMH
# benchmark OutboxWriteBenchmark and prints each way's mean and its ratio to the write without the outbox: the write and
# its change in one statement (Outbox.writeAndAppend, one round trip), and the write followed by Outbox.append (two).
# Side by side: ROUNDS rounds (default 3), each measuring the three ways one after the other for a few seconds, in an
# order that rotates, so that each ratio compares measurements taken within the same half-minute of the disk; prints
# every round's ratios and their median. ROUNDS=1 with JMH options runs one long measurement per way instead.
#   usage: [ROUNDS=n] benchmarks/data/outbox-overhead.sh [durable|fast] [JMH options...]      (default durable)
#   a quick check that it runs (not a measurement): ROUNDS=1 benchmarks/data/outbox-overhead.sh fast -wi 1 -i 1 -w 1 -r 1
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ "${1:-}" == --help || "${1:-}" == -h ]]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
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
rounds="${ROUNDS:-3}"
ways=(writeWithoutOutbox writeAndAppendInOneStatement writeWithOutbox)
per_way=(-f 1 -wi 2 -w 2 -i 3 -r 2)       # about 10 s per way and round
[[ $# -gt 0 ]] && per_way=("$@")
for ((round = 0; round < rounds; round++)); do
  for ((i = 0; i < 3; i++)); do
    way="${ways[$(( (i + round) % 3 ))]}"
    java ${JAVA_OPTS:-} -jar benchmarks/jmh/target/benchmarks.jar "OutboxWriteBenchmark.$way\$" \
      -p url="jdbc:postgresql://127.0.0.1:$port/bench?user=postgres" "${per_way[@]}" \
      -rf json -rff "$work/r$round-$way.json" >"$work/jmh-r$round-$way.log"
  done
done

python3 - "$work" "$mode" "$rounds" <<'PY'
import json, statistics, sys
work, mode, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = (("writeAndAppendInOneStatement", "one statement (writeAndAppend)"),
         ("writeWithOutbox", "write then append"))
def load(r, way):
    return json.load(open(f"{work}/r{r}-{way}.json"))[0]["primaryMetric"]
def err(m):  # NaN (a string in JMH's JSON) with a single iteration
    return f" ± {m['scoreError']:.1f}" if isinstance(m["scoreError"], (int, float)) else ""
print(f"PostgreSQL ({mode}), one row per transaction, JMH average time per write, {rounds} round(s) side by side:")
ratios = {n: [] for n, _ in names}
for r in range(rounds):
    without = load(r, "writeWithoutOutbox")
    line = f"  round {r + 1}: without {without['score']:7.1f}{err(without)} µs"
    for name, label in names:
        with_ = load(r, name)
        ratios[name].append(with_["score"] / without["score"])
        line += f" | {label} {with_['score']:7.1f}{err(with_)} µs {ratios[name][-1]:4.2f}x"
    print(line)
for name, label in names:
    m = statistics.median(ratios[name])
    print(f"  median ratio, {label:<32} {m:5.2f}x   (goal: <= 1.3x: {'met' if m <= 1.3 else 'NOT met'})")
PY
