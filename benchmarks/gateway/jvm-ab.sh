#!/usr/bin/env bash
# Two unitas gateways side by side in front of one nginx backend, each with its own JVM options, measured with wrk
# in alternation so that whatever else the machine does hits both alike. Prints each one's median req/s and CPU
# time per request. It is how the launcher's JVM options for `unitas gateway` were chosen:
#   benchmarks/gateway/jvm-ab.sh "" "-XX:+UseParallelGC -Dio.netty.leakDetection.level=disabled"
# Usage: benchmarks/gateway/jvm-ab.sh "OPTIONS_A" "OPTIONS_B"   (env: PAIRS=8 DURATION=10s WARMUP=30s)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
A="$1"; B="$2"
PAIRS="${PAIRS:-8}"; DURATION="${DURATION:-10s}"; WARMUP="${WARMUP:-30s}"
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || { echo "needs nginx and wrk (see run.sh)" >&2; exit 2; }
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
(cd "$root" && mvn -B -ntp -q -pl unitas-cli -am package -DskipTests)

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [[ -f "$work/nginx.pid" ]] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
BACKEND=$(free_port); PA=$(free_port); PB=$(free_port)

cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work; uwsgi_temp_path $work; scgi_temp_path $work;
  server { listen 127.0.0.1:$BACKEND; keepalive_requests 1000000; location / { return 200 'ok'; } }
}
CONF
"$NGINX" -c "$work/nginx.conf" -p "$work"
printf 'regions: [cn, eu]\n' >"$work/topology.yaml"
printf 'cn: true\neu: true\n' >"$work/health.yaml"
cat >"$work/rules.yaml" <<YAML
units: [{id: u-cn, region: cn}, {id: u-eu, region: eu}]
key: {sources: [{header: x-user-id}], transform: mod 10000}
ranges: [{range: 0~4999, unit: u-cn}, {range: 5000~9999, unit: u-eu}]
YAML
start() { # port, options
  cat >"$work/gw-$1.yaml" <<YAML
region: cn
listen: 127.0.0.1:$1
workers: 1
upstreams: {cn: {endpoints: ["127.0.0.1:$BACKEND"]}, eu: {endpoints: ["127.0.0.1:$BACKEND"]}}
access_log: off
static: {topology: topology.yaml, rules: rules.yaml, health: health.yaml}
YAML
  # shellcheck disable=SC2086
  java -Xmx512m $2 -jar "$root/unitas-cli/target/unitas.jar" gateway --config "$work/gw-$1.yaml" \
    >"$work/gw-$1.log" 2>&1 &
  pids+=($!)
}
start "$PA" "$A"; start "$PB" "$B"
for p in "$PA" "$PB"; do
  for _ in $(seq 1 60); do curl -fs -o /dev/null -H 'x-user-id: 1' "http://127.0.0.1:$p/" && break; sleep 0.5; done
  wrk -t2 -c64 -d"$WARMUP" -H 'x-user-id: 1234' "http://127.0.0.1:$p/" >/dev/null
done
measure() { # port pid -> "req/s cpu-us-per-request"
  local t0 t1 out
  t0=$(awk '{print $14 + $15}' "/proc/$2/stat")
  out=$(wrk -t2 -c64 -d"$DURATION" -H 'x-user-id: 1234' "http://127.0.0.1:$1/")
  t1=$(awk '{print $14 + $15}' "/proc/$2/stat")
  awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" '/requests in/ {n = $1} /Requests\/sec/ {r = $2}
    END {printf "%s %.1f\n", r, t * 1e6 / hz / n}' <<<"$out"
}
for i in $(seq 1 "$PAIRS"); do
  echo "A $(measure "$PA" "${pids[0]}")"
  echo "B $(measure "$PB" "${pids[1]}")"
done | tee "$work/runs"
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for x in A B; do
  echo "$x: median $(awk -v x="$x" '$1 == x {print $2}' "$work/runs" | median) req/s," \
       "$(awk -v x="$x" '$1 == x {print $3}' "$work/runs" | median) us CPU per request"
done
echo "A = '$A'; B = '$B'; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
