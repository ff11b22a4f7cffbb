#!/usr/bin/env bash
# Two unitas gateways side by side in front of one nginx backend, each with its own JVM options, measured with wrk
# in alternation so that whatever else the machine does hits both alike. Prints each one's median req/s and CPU
# time per request. It is how the launcher's JVM options for `unitas gateway` were chosen:
#   benchmarks/gateway/jvm-ab.sh "" "-XX:+UseParallelGC -Dio.netty.leakDetection.level=disabled"
# With YAML_A or YAML_B, that side's gateway.yaml gets those lines too: the socket layers compared,
#   YAML_B="transport: epoll" benchmarks/gateway/jvm-ab.sh "$OPTS" "$OPTS"
# Usage: benchmarks/gateway/jvm-ab.sh "OPTIONS_A" "OPTIONS_B"
#        (env: PAIRS=8 DURATION=10s WARMUP=30s YAML_A= YAML_B=
#        JAR_A=another build's unitas.jar for gateway A)
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then  # the comment above, without its marks
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
A="$1"; B="$2"
PAIRS="${PAIRS:-8}"; DURATION="${DURATION:-10s}"; WARMUP="${WARMUP:-30s}"; THREADS=2; CONNECTIONS=64
# shellcheck source=common.sh
. "$here/common.sh"
require_nginx_and_wrk
two_gateways_running "$A" "$B"
for p in "$PA" "$PB"; do
  wrk -t2 -c64 -d"$WARMUP" -H 'x-user-id: 1234' "http://127.0.0.1:$p/" >/dev/null
done
for i in $(seq 1 "$PAIRS"); do
  echo "A $(measure "$PA" "${pids[0]}")"
  echo "B $(measure "$PB" "${pids[1]}")"
done | tee "$work/runs"
for x in A B; do
  echo "$x: median $(awk -v x="$x" '$1 == x {print $2}' "$work/runs" | median) req/s," \
       "$(awk -v x="$x" '$1 == x {print $3}' "$work/runs" | median) us CPU per request"
done
echo "A = '$A' ${YAML_A:-}; B = '$B' ${YAML_B:-}; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
