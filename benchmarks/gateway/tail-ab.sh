#!/usr/bin/env bash
# The tail latency two unitas gateways add, side by side with nginx as the reference proxy, all in front of one nginx
# backend: each gets WARMUP of full load, then ROUNDS of a direct call, gateway A, gateway B and nginx, one wrk run of
# DURATION each, CONNECTIONS connections paced to RATE requests/s in all (RATE=0: unpaced, each connection sending
# its next request when the answer came). Prints per round each one's p99 and what it adds over the direct call, and
# the CPU ticks each gateway's JIT compilers and whole process spent in its run; then the medians of what each adds
# at the p99, the p90 and the median. HOGS=N runs N busy loops in a session of their own throughout, as a batch job
# sharing the host would.
#   benchmarks/gateway/tail-ab.sh "$OPTS" "$OPTS -XX:ThreadPriorityPolicy=1 -XX:CompilerThreadPriority=19"
# Usage: benchmarks/gateway/tail-ab.sh "OPTIONS_A" "OPTIONS_B"
#        (env: ROUNDS=6 DURATION=10s RATE=12000 CONNECTIONS=64 WARMUP=30s YAML_A= YAML_B= HOGS=0
#        JAR_A=another build's unitas.jar for gateway A)
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" || $# -lt 2 ]]; then  # the comment above, without its marks
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]] && exit 0 || exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
A="$1"; B="$2"
ROUNDS="${ROUNDS:-6}"; THREADS=2; DURATION="${DURATION:-10s}"; RATE="${RATE:-12000}"; CONNECTIONS="${CONNECTIONS:-64}"
WARMUP="${WARMUP:-30s}"; HOGS="${HOGS:-0}"
# shellcheck source=common.sh
. "$here/common.sh"
require_nginx_and_wrk
two_gateways_running "$A" "$B"
for _ in $(seq 1 "$HOGS"); do  # stopped on exit with the gateways (pids)
  setsid bash -c 'while :; do :; done' &
  pids+=($!)
done
NGINX_PROXY=$(free_port)
nginx_proxy "$work/proxy" "$NGINX_PROXY"
for p in "$PA" "$PB" "$NGINX_PROXY"; do
  wrk -t2 -c64 -d"$WARMUP" -H 'x-user-id: 1234' "http://127.0.0.1:$p/" >/dev/null
done

jit_ticks() { for t in /proc/"$1"/task/*; do [[ "$(cat "$t/comm")" == *Compiler* ]] && awk '{print $14 + $15}' "$t/stat"
              done | awk '{s += $1} END {print s + 0}'; }
# A gateway's run: "p50 p90 p99 jit-ticks all-ticks".
watched_run() { # port pid
  local j0 c0 l
  j0=$(jit_ticks "$2"); c0=$(ticks "$2")
  l=$(latencies_at "$1" "$RATE")
  echo "$l $(($(jit_ticks "$2") - j0)) $(($(ticks "$2") - c0))"
}
# Each round's line in rounds: direct p50 p90 p99, A's p50 p90 p99 jit all, B's the same, nginx's p50 p90 p99.
for r in $(seq 1 "$ROUNDS"); do   # interleaved, so a burst of load elsewhere hits all four alike
  echo "$(latencies_at "$BACKEND" "$RATE") $(watched_run "$PA" "${pids[0]}") $(watched_run "$PB" "${pids[1]}")" \
       "$(latencies_at "$NGINX_PROXY" "$RATE")" >>"$work/rounds"
  tail -1 "$work/rounds" | awk -v r="$r" -v l="$(cut -d' ' -f1 /proc/loadavg)" '{
    printf "round %d: p99 direct %.2f ms; A %.2f (+%.2f; JIT %d of %d ticks); B %.2f (+%.2f; JIT %d of %d);" \
           " nginx %.2f (+%.2f); load %s\n", r, $3, $6, $6 - $3, $7, $8, $11, $11 - $3, $12, $13, $16, $16 - $3, l }'
done
added() { awk -v c="$1" -v d="$2" '{print $c - $d}' "$work/rounds" | median; } # column, the direct call's column
echo "added over a direct call, medians of $ROUNDS rounds at" \
     "$([[ $RATE -gt 0 ]] && echo "$RATE req/s" || echo "full speed"), $CONNECTIONS connections:"
echo "  p99: A +$(added 6 3) ms, B +$(added 11 3) ms, nginx +$(added 16 3) ms"
echo "  p90: A +$(added 5 2) ms, B +$(added 10 2) ms, nginx +$(added 15 2) ms"
echo "  p50: A +$(added 4 1) ms, B +$(added 9 1) ms, nginx +$(added 14 1) ms"
echo "A = '$A' ${YAML_A:-}; B = '$B' ${YAML_B:-}; $HOGS busy loops beside; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
