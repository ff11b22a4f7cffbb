#!/usr/bin/env bash
# The outbox's write overhead as the statements alone, interleaved: pgbench picks one of three scripts at random per
# transaction on one connection (a ledger row inserted and committed; the same with unitas's append after it; the
# same as one statement, as Outbox.writeAndAppend sends it), so load that comes and goes weighs on all three alike.
# Each script sends BEGIN as a round trip of its own (JDBC sends it with the first statement), which dilutes both
# ratios. Starts its own PostgreSQL on a free port and runs unitas's migrations there.
#   usage: benchmarks/data/outbox-overhead-pgbench.sh [durable|fast] [SECONDS]      (default durable 60)
set -euo pipefail
if [[ "${1:-}" == --help || "${1:-}" == -h ]]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
mode="${1:-durable}"
seconds="${2:-60}"
[[ "$mode" == durable || "$mode" == fast ]] || { echo "usage: $0 [durable|fast] [SECONDS]" >&2; exit 2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/postgres.sh"
pg_setup
pg_start pgb "$mode"
port=$pg_port
for f in $here/../../unitas-data/src/main/resources/io/unitas/data/jdbc/V*.sql; do
  "$bin/psql" -qAtX -h 127.0.0.1 -p $port -U postgres -d bench -f "$f" >/dev/null
done
"$bin/psql" -qAtX -h 127.0.0.1 -p $port -U postgres -d bench -c "CREATE TABLE bench_ledger_entries (entry_id VARCHAR(100) PRIMARY KEY, account VARCHAR(100) NOT NULL, amount BIGINT NOT NULL); CREATE SEQUENCE bench_ids" >/dev/null
cat > $work/without.sql <<'S'
BEGIN;
INSERT INTO bench_ledger_entries (entry_id, account, amount) VALUES ('e-' || nextval('bench_ids'), 'alice', 1);
COMMIT;
S
cat > $work/append.sql <<'S'
BEGIN;
INSERT INTO bench_ledger_entries (entry_id, account, amount) VALUES ('e-' || nextval('bench_ids'), 'alice', 1);
WITH tx AS MATERIALIZED (SELECT pg_current_xact_id()) INSERT INTO unitas_outbox (position_id, unit, entity_type, entity_key, payload, written_at) SELECT nextval('unitas_outbox_positions'), 'u-1', 'ledger_entry', 'e-x', '\x616c6963657c31'::bytea, 1 FROM tx RETURNING position_id;
COMMIT;
S
cat > $work/one.sql <<'S'
BEGIN;
WITH written AS (INSERT INTO bench_ledger_entries (entry_id, account, amount) VALUES ('e-' || nextval('bench_ids'), 'alice', 1) RETURNING 1), counted AS (SELECT count(*) AS n FROM written), tx AS MATERIALIZED (SELECT pg_current_xact_id()), appended AS (INSERT INTO unitas_outbox (position_id, unit, entity_type, entity_key, payload, written_at) SELECT nextval('unitas_outbox_positions'), 'u-1', 'ledger_entry', 'e-x', '\x616c6963657c31'::bytea, 1 FROM tx, counted WHERE counted.n > 0 RETURNING position_id) SELECT counted.n, (SELECT position_id FROM appended) FROM counted;
COMMIT;
S
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
out="$("$bin/pgbench" -n -M prepared -c 1 -T "$seconds" -h 127.0.0.1 -p $port -U postgres -f $work/without.sql -f $work/append.sql -f $work/one.sql bench 2>&1)"
lat=($(printf '%s\n' "$out" | sed -n 's/^ - latency average = \([0-9.]*\) ms$/\1/p'))
[[ ${#lat[@]} == 3 ]] || { printf '%s\n' "$out" >&2; exit 1; }
echo "PostgreSQL ($mode), pgbench, one row per transaction, interleaved, average latency:"
awk -v a="${lat[0]}" -v b="${lat[1]}" -v c="${lat[2]}" 'BEGIN {
  printf "  without outbox                   %.3f ms\n", a
  printf "  write then append                %.3f ms   ratio %.2fx\n", b, b / a
  printf "  one statement (writeAndAppend)   %.3f ms   ratio %.2fx\n", c, c / a }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
