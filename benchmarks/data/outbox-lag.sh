#!/usr/bin/env bash
# Replication lag per unit across three regions at 2,000 changes/s: goal p99 <= 300 ms. Starts three PostgreSQL
# servers (cn, eu, us) on free ports with production durability (fsync and synchronous_commit on; "fast" turns both
# off), writes ledger entries with their changes in each region's outbox, ships them with the library's shipper and
# in-process transport to the other two, and prints p50/p90/p99/max of each change's age when applied there.
#   usage: benchmarks/data/outbox-lag.sh [durable|fast] [--rate N] [--units N] [--seconds N] [--warmup N]
#                                       [--writers N] [--poll MILLIS]
#   a quick check that it runs (not a measurement): benchmarks/data/outbox-lag.sh fast --seconds 3 --warmup 1
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ "${1:-}" == --help || "${1:-}" == -h ]]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
mode="${1:-durable}"
[[ "$mode" == durable || "$mode" == fast ]] || { echo "usage: $0 [durable|fast] [options...] (see --help)" >&2; exit 2; }
shift $(( $# > 0 ? 1 : 0 ))
source "$here/postgres.sh"
pg_setup
urls=()
for region in cn eu us; do
  pg_start "$region" "$mode"
  urls+=("--$region" "jdbc:postgresql://127.0.0.1:$pg_port/bench?user=postgres&reWriteBatchedInserts=true")
done
cd "$root"
[[ -f benchmarks/jmh/target/benchmarks.jar ]] || mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests
echo "PostgreSQL ($mode), three servers:"
java ${JAVA_OPTS:-} -cp benchmarks/jmh/target/benchmarks.jar io.unitas.benchmarks.OutboxLagBenchmark "${urls[@]}" "$@"
