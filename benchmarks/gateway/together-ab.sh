#!/usr/bin/env bash
# Two unitas gateways in front of one nginx backend, each loaded by its own wrk AT THE SAME TIME, so that whatever
# else the machine runs hits both alike within each round (jvm-ab.sh alternates them instead). Each may have its own
# JVM options and its own jar, so that a change can be compared with the code before it. Prints each round's CPU time
# per request of both and their ratio, then the medians.
#   benchmarks/gateway/together-ab.sh "$OPTS" "$OPTS" before.jar unitas-cli/target/unitas.jar
# Usage: benchmarks/gateway/together-ab.sh "OPTIONS_A" "OPTIONS_B" [JAR_A [JAR_B]]
#        (env: ROUNDS=8 DURATION=8s WARMUP=30s CONNECTIONS=32; the jars default to unitas-cli/target/unitas.jar)
set -euo pipefail
if [[ "${1:-}" == --help || "${1:-}" == -h || $# -lt 2 ]]; then
  sed -n '2,8p' "$0" | cut -c3-
  [[ "${1:-}" == --help || "${1:-}" == -h ]] && exit 0 || exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
A="$1"; B="$2"
JAR_A="${3:-$root/unitas-cli/target/unitas.jar}"; JAR_B="${4:-$JAR_A}"
ROUNDS="${ROUNDS:-8}"; DURATION="${DURATION:-8s}"; WARMUP="${WARMUP:-30s}"; CONNECTIONS="${CONNECTIONS:-32}"
# shellcheck source=common.sh
. "$here/common.sh"
require_nginx_and_wrk
[[ -f "$JAR_A" && -f "$JAR_B" ]] || (cd "$root" && mvn -B -ntp -q -pl unitas-cli -am package -DskipTests)

two_gateways
start_gateway "$PA" "$A" "$JAR_A"; start_gateway "$PB" "$B" "$JAR_B"
load() { wrk -t1 -c"$CONNECTIONS" -d"$1" -H 'x-user-id: 1234' "http://127.0.0.1:$2/"; }
load "$WARMUP" "$PA" >/dev/null & w=$!; load "$WARMUP" "$PB" >/dev/null; wait "$w"
one() { # port pid -> "requests cpu-us-per-request"
  local t0 t1 out
  t0=$(ticks "$2"); out=$(load "$DURATION" "$1"); t1=$(ticks "$2")
  awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" '/requests in/ {n = $1} END {printf "%d %.2f\n", n, t * 1e6 / hz / n}' \
      <<<"$out"
}
for i in $(seq 1 "$ROUNDS"); do
  one "$PA" "${pids[0]}" >"$work/a" & w=$!; one "$PB" "${pids[1]}" >"$work/b"; wait "$w"
  read -r na ca <"$work/a"; read -r nb cb <"$work/b"
  echo "round $i: A $na requests, $ca us/request; B $nb requests, $cb us/request; B/A $(awk -v a="$ca" -v b="$cb" 'BEGIN {printf "%.3f", b / a}')"
done | tee "$work/runs"
echo "medians: A $(awk '{print $6}' "$work/runs" | median) us, B $(awk '{print $11}' "$work/runs" | median) us," \
     "B/A $(awk '{print $NF}' "$work/runs" | median)"
echo "A = '$A' ($JAR_A); B = '$B' ($JAR_B); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
