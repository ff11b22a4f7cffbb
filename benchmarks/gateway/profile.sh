#!/usr/bin/env bash
# What the unitas gateway's proxy path costs per request, in figures that do not depend on the machine's load: the
# bytes its event loop allocates per request, where they are allocated, and where its CPU samples fall. Starts the
# nginx backend and a gateway as run.sh does (through the launcher, so with the JVM options users get), loads it with
# wrk for WARMUP, then records DURATION more of the same load with JDK Flight Recorder and reads the recording with
# JfrPerRequest.java; prints first the CPU time of the gateway's threads per request over the same DURATION, split into
# the event loop, the JIT compilers, the garbage collector and the rest.
# Usage: benchmarks/gateway/profile.sh   (env: WARMUP=30s DURATION=10s CONNECTIONS=64 THREADS=2 KEEP=dir)
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then  # the comment above, without its marks
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
WARMUP="${WARMUP:-30s}"
DURATION="${DURATION:-10s}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
# shellcheck source=common.sh
. "$here/common.sh"
require_nginx_and_wrk

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [[ -f "$work/backend/nginx.pid" ]] && kill "$(cat "$work/backend/nginx.pid")" 2>/dev/null || true
  if [[ -n "${KEEP:-}" ]]; then mkdir -p "$KEEP" && cp "$work"/*.jfr "$work"/*.log "$KEEP"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

BACKEND=$(free_port); UNITAS=$(free_port)
nginx_conf "$work/backend" "server { listen 127.0.0.1:$BACKEND; keepalive_requests 1000000;
  location / { return 200 'ok'; } }"
state_files "$work"
cat >"$work/gateway.yaml" <<YAML
region: cn
listen: 127.0.0.1:$UNITAS
workers: 1
upstreams:
  cn: {endpoints: ["127.0.0.1:$BACKEND"]}
  eu: {endpoints: ["127.0.0.1:$BACKEND"]}
access_log: off
static: {topology: topology.yaml, rules: rules.yaml, health: health.yaml}
YAML
UNITAS_JAVA_OPTS="${GATEWAY_JAVA_OPTS:--Xmx512m}" setsid "$root/unitas" gateway --config "$work/gateway.yaml" \
  >"$work/unitas.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 240); do curl -fs -o /dev/null -H 'x-user-id: 1234' "http://127.0.0.1:$UNITAS/" && break; sleep 0.5; done
curl -fs -o /dev/null -H 'x-user-id: 1234' "http://127.0.0.1:$UNITAS/" || { cat "$work/unitas.log" >&2; exit 1; }

load() { wrk -t"$THREADS" -c"$CONNECTIONS" -d"$1" -H 'x-user-id: 1234' "http://127.0.0.1:$UNITAS/"; }
echo "warming up for $WARMUP..."
load "$WARMUP" >/dev/null
# The JDK's profile settings, with every allocation sample the JVM offers (one per TLAB refill) and Java stacks
# sampled every millisecond, so that ten seconds give a breakdown worth reading.
jfc="$(dirname "$(readlink -f "$(command -v java)")")/../lib/jfr/profile.jfc"
sed -e 's|control="allocation-profiling">[^<]*<|control="allocation-profiling">1000000000/s<|' \
    -e 's|control="method-sampling-java-interval">[^<]*<|control="method-sampling-java-interval">1 ms<|' \
    "$jfc" >"$work/perrequest.jfc"
thread_ticks "${pids[0]}" >"$work/ticks0"
jcmd "${pids[0]}" JFR.start name=perrequest settings="$work/perrequest.jfc" >/dev/null
out=$(load "$DURATION")
jcmd "${pids[0]}" JFR.stop name=perrequest filename="$work/gateway.jfr" >/dev/null
thread_ticks "${pids[0]}" >"$work/ticks1"
requests=$(awk '/requests in/ {print $1}' <<<"$out")
join "$work/ticks0" "$work/ticks1" | awk -v n="$requests" -v hz="$(getconf CLK_TCK)" '{
    d = $4 - $2; name = $3
    if (name ~ /^unitas-gateway-/) part = "event loop" # comm keeps 15 characters; the access log is off
    else if (name ~ /Compiler/) part = "JIT compilers"
    else if (name ~ /^GC_|^VM_Thread/) part = "garbage collector, VM thread"
    else part = "other threads (JFR, state reload, ...)"
    t[part] += d; total += d }
  END { printf "CPU per request over %d requests, by thread (us): %.1f in all\n", n, total * 1e6 / hz / n
        for (p in t) printf "  %-40s %6.2f\n", p, t[p] * 1e6 / hz / n }'
echo
echo "$out" >"$work/wrk.log"
non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
[[ -z "$non2xx" ]] || { echo "the gateway answered $non2xx requests with a non-2xx status" >&2; exit 1; }
java "$here/JfrPerRequest.java" "$work/gateway.jfr" "$requests"
