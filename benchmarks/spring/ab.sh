#!/usr/bin/env bash
# The same small Spring MVC service (BenchService.java: one inbound request, one load-balanced outbound call to an
# nginx backend) side by side, once with the unitas starter and once without it (unitas.enabled=false), measured
# with wrk in alternation so that whatever else the machine does hits both alike. Prints each one's median req/s
# and CPU time per request (the service JVM's user + system time from /proc, divided by the requests wrk completed),
# and the ratio with/without.
# Usage: benchmarks/spring/ab.sh   (env: PAIRS=8 DURATION=10s WARMUP=30s CONNECTIONS=32)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
PAIRS="${PAIRS:-8}"; DURATION="${DURATION:-10s}"; WARMUP="${WARMUP:-30s}"; THREADS=2; CONNECTIONS="${CONNECTIONS:-32}"
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 2; }
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
[[ -x "$NGINX" ]] || { echo "needs nginx (apt-get install nginx-light)" >&2; exit 2; }
# shellcheck source=../gateway/common.sh
. "$root/benchmarks/gateway/common.sh"

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [[ -f "$work/backend/nginx.pid" ]] && kill "$(cat "$work/backend/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# the starter and the test class path it is tested with (Spring Boot 3.5, Tomcat, Spring Cloud LoadBalancer)
(cd "$root" && mvn -B -ntp -q -pl unitas-spring-boot-starter -am package -DskipTests \
   dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$work/cp.txt")
# a copy of the starter's classes, so a build running meanwhile cannot change them under the services; without
# Boot 4's customizer jars, which the starter compiles against but a Boot 3.5 application never has
cp -r "$root/unitas-spring-boot-starter/target/classes" "$work/starter"
cp="$work/starter:$(tr ':' '\n' <"$work/cp.txt" | grep -v -e '/spring-boot-restclient/' -e '/spring-boot-webclient/' \
  | paste -sd:)"
mkdir -p "$work/classes"
javac -d "$work/classes" -cp "$cp" "$here/BenchService.java"

BACKEND=$(free_port); PA=$(free_port); PB=$(free_port)
nginx_conf "$work/backend" "server { listen 127.0.0.1:$BACKEND; keepalive_requests 1000000;
  location / { return 200 'ok'; } }"
state_files "$work"

start() { # port, unitas.enabled
  java -Xmx384m -XX:+UseParallelGC -cp "$work/classes:$cp" bench.BenchService \
    --server.port="$1" --unitas.enabled="$2" --spring.main.banner-mode=off --logging.level.root=warn \
    --eureka.client.enabled=false --spring.cloud.loadbalancer.cache.enabled=false \
    --unitas.region=eu --unitas.topology="file:$work/topology.yaml" --unitas.rules="file:$work/rules.yaml" \
    --unitas.health="file:$work/health.yaml" --unitas.reload-interval=1h \
    "--spring.cloud.discovery.client.simple.instances.inventory[0].uri=http://127.0.0.1:$BACKEND" \
    "--spring.cloud.discovery.client.simple.instances.inventory[0].metadata[unitas.region]=eu" \
    "--spring.cloud.discovery.client.simple.instances.inventory[1].uri=http://localhost:$BACKEND" \
    "--spring.cloud.discovery.client.simple.instances.inventory[1].metadata[unitas.region]=cn" \
    >"$work/service-$1.log" 2>&1 &
  pids+=($!)
}
start "$PA" true; start "$PB" false
for p in "$PA" "$PB"; do
  for _ in $(seq 1 240); do curl -fs -o /dev/null -H 'x-user-id: 1234' "http://127.0.0.1:$p/order" && break; sleep 0.5; done
  curl -fs -o /dev/null -H 'x-user-id: 1234' "http://127.0.0.1:$p/order" || {
    echo "the service on port $p did not start:" >&2; tail -20 "$work/service-$p.log" >&2; exit 1; }
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -H 'x-user-id: 6234' "http://127.0.0.1:$p/order" >/dev/null
done
measure_order() { # port pid -> "req/s cpu-microseconds-per-request"
  local t0 t1 out
  t0=$(ticks "$2")
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -H 'x-user-id: 6234' "http://127.0.0.1:$1/order")
  t1=$(ticks "$2")
  awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" '/requests in/ {n = $1} /Requests\/sec/ {r = $2}
    /Non-2xx/ {print "non-2xx answers: " $0 > "/dev/stderr"} END {printf "%s %.1f\n", r, t * 1e6 / hz / n}' <<<"$out"
}
for i in $(seq 1 "$PAIRS"); do
  echo "with $(measure_order "$PA" "${pids[0]}")"
  echo "without $(measure_order "$PB" "${pids[1]}")"
done | tee "$work/runs"
for x in with without; do
  echo "$x: $(awk -v x="$x" '$1 == x {print $2}' "$work/runs" | median) req/s," \
       "$(awk -v x="$x" '$1 == x {print $3}' "$work/runs" | median) us CPU per request (medians)"
done | tee "$work/summary"
with=$(awk '$1 == "with:" {print $4}' "$work/summary"); without=$(awk '$1 == "without:" {print $4}' "$work/summary")
awk -v a="$with" -v b="$without" 'BEGIN {printf "CPU per request, with/without the starter: %.3fx (%+.1f us)\n", a / b, a - b}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
