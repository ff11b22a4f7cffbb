#!/usr/bin/env bash
# The tail latency two unitas gateways add, side by side with nginx as the reference proxy, all in front of one nginx
# backend: each gets WARMUP of full load, then ROUNDS of a direct call, gateway A, gateway B and nginx, one wrk run of
# DURATION each, CONNECTIONS connections paced to RATE requests/s in all (RATE=0: unpaced, each connection sending
# its next request when the answer came). Prints per round each one's p99 and what it adds over the direct call, and
# the CPU ticks each gateway's JIT compilers and whole process spent in its run; then the medians of what each adds.
#   benchmarks/gateway/tail-ab.sh "$OPTS" "$OPTS -XX:ThreadPriorityPolicy=1 -XX:CompilerThreadPriority=19"
# Usage: benchmarks/gateway/tail-ab.sh "OPTIONS_A" "OPTIONS_B"
#        (env: ROUNDS=6 DURATION=10s RATE=12000 CONNECTIONS=64 WARMUP=30s YAML_A= YAML_B=
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
WARMUP="${WARMUP:-30s}"
# shellcheck source=common.sh
. "$here/common.sh"
require_nginx_and_wrk
two_gateways_running "$A" "$B"
NGINX_PROXY=$(free_port)
nginx_proxy "$work/proxy" "$NGINX_PROXY"
for p in "$PA" "$PB" "$NGINX_PROXY"; do
  wrk -t2 -c64 -d"$WARMUP" -H 'x-user-id: 1234' "http://127.0.0.1:$p/" >/dev/null
done

jit_ticks() { for t in /proc/"$1"/task/*; do [[ "$(cat "$t/comm")" == *Compiler* ]] && awk '{print $14 + $15}' "$t/stat"
              done | awk '{s += $1} END {print s + 0}'; }
# A gateway's run: "p99 jit-ticks all-ticks".
watched_p99() { # port pid
  local j0 c0 p
  j0=$(jit_ticks "$2"); c0=$(ticks "$2")
  p=$(p99_at "$1" "$RATE")
  echo "$p $(($(jit_ticks "$2") - j0)) $(($(ticks "$2") - c0))"
}
for r in $(seq 1 "$ROUNDS"); do   # interleaved, so a burst of load elsewhere hits all four alike
  d=$(p99_at "$BACKEND" "$RATE")
  read -r a ja ca <<<"$(watched_p99 "$PA" "${pids[0]}")"
  read -r b jb cb <<<"$(watched_p99 "$PB" "${pids[1]}")"
  n=$(p99_at "$NGINX_PROXY" "$RATE")
  echo "$r $d $a $ja $ca $b $jb $cb $n" >>"$work/rounds"
  awk -v l="$(cut -d' ' -f1 /proc/loadavg)" '{
    printf "round %d: p99 direct %.2f ms; A %.2f (+%.2f; JIT %d of %d ticks); B %.2f (+%.2f; JIT %d of %d);" \
           " nginx %.2f (+%.2f); load %s\n", $1, $2, $3, $3 - $2, $4, $5, $6, $6 - $2, $7, $8, $9, $9 - $2, l }' \
    <<<"$r $d $a $ja $ca $b $jb $cb $n"
done
echo "p99 added, medians of $ROUNDS rounds at $([[ $RATE -gt 0 ]] && echo "$RATE req/s" || echo "full speed")," \
     "$CONNECTIONS connections:" \
     "A +$(awk '{print $3 - $2}' "$work/rounds" | median) ms, B +$(awk '{print $6 - $2}' "$work/rounds" | median) ms," \
     "nginx +$(awk '{print $9 - $2}' "$work/rounds" | median) ms"
echo "A = '$A' ${YAML_A:-}; B = '$B' ${YAML_B:-}; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
