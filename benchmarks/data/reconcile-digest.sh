#!/usr/bin/env bash
# What reconciliation by digests costs one copy on PostgreSQL: fills unitas_merge_state with ROWS rows of one unit and
# one entity type (a 60-byte state each), then times the statements io.unitas.data.merge.PostgresMergeDigests sends —
# the digests of every range (one aggregate over the unit's rows) and the rows of the differing ranges (here one) —
# three times each, and prints the rows read per pass and per minute at a given window. Starts its own
# PostgreSQL on a free port and runs unitas's migrations there.
#   usage: benchmarks/data/reconcile-digest.sh [ROWS] [RANGES] [WINDOW_SECONDS]      (default 10000000 1024 10)
set -euo pipefail
if [[ "${1:-}" == --help || "${1:-}" == -h ]]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
rows="${1:-10000000}"
ranges="${2:-1024}"
window="${3:-10}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/postgres.sh"
pg_setup
pg_start digest fast
port=$pg_port
psql_() { "$bin/psql" -qAtX -h 127.0.0.1 -p $port -U postgres -d bench "$@"; }
for f in $here/../../unitas-data/src/main/resources/io/unitas/data/jdbc/V*.sql; do
  psql_ -f "$f" >/dev/null
done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
psql_ -c "INSERT INTO unitas_merge_state (entity_type, entity_key, unit, state, updated_at)
          SELECT 'likes', 'post-' || i, 'u-1', decode(md5(i::text) || md5((i + 1)::text) || substr(md5((i + 2)::text), 1, 56), 'hex'), 0
          FROM generate_series(1, $rows) AS i" >/dev/null
psql_ -c "VACUUM ANALYZE unitas_merge_state" >/dev/null
echo "filled $rows rows in $(( $(date +%s) - start )) s; table $(psql_ -c "SELECT pg_size_pretty(pg_total_relation_size('unitas_merge_state'))")"
# The statements of PostgresMergeDigests, as sent (keep in step with RANGE and ROW_HASH there).
range="((('x' || substr(md5(entity_key), 1, 8))::bit(32)::int & 2147483647) % $ranges)"
row_hash="('x' || substr(md5(convert_to(entity_key, 'UTF8') || '\\x00'::bytea || state), 1, 16))::bit(64)::bigint"
digests="SELECT $range AS r, count(*), sum($row_hash) FROM unitas_merge_state WHERE unit = 'u-1' AND entity_type = 'likes' GROUP BY 1"
one="SELECT entity_key, state, written_here_at IS NOT NULL FROM unitas_merge_state WHERE unit = 'u-1' AND entity_type = 'likes' AND $range = ANY ('{7}'::int[])"
time_ms() { local t0 t1; t0=$(date +%s%N); psql_ -c "$1" >/dev/null; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
d=(); o=()
for i in 1 2 3; do d+=($(time_ms "$digests")); o+=($(time_ms "$one")); done
n=$(psql_ -c "SELECT count(*) FROM ($digests) d")
echo "digests of $n ranges over $rows rows: ${d[*]} ms"
echo "rows of one range (about $(( rows / ranges )) rows): ${o[*]} ms"
awk -v rows="$rows" -v w="$window" 'BEGIN {
  printf "rows read per pass and copy: %d (the home and this region each read theirs once, and once more for the differing ranges' rows)\n", rows
  printf "rows read per minute, both copies, one pass per %d s: %.0f\n", w, rows * 2 * 60 / w }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
