#!/usr/bin/env bash
# Side-by-side cost and added latency of the unitas gateway against nginx (proxy_pass, upstream keepalive) and a
# Spring Cloud Gateway app making the same header-based choice, all in front of the same nginx backend on loopback,
# measured with wrk after WARMUP of load. Prints first the two figures the gateway is held to, which depend less on
# what else the machine runs than req/s does:
#   CPU time per request (user + system, from /proc) <= nginx's;
#   p99 added over a direct call at half of nginx's peak rate, taken within each round, <= what nginx adds;
# then the throughput ratios (>= 0.8 x nginx, >= 2 x Spring Cloud Gateway). Medians of RUNS interleaved runs.
# Usage: benchmarks/gateway/run.sh   (env: RUNS=5 DURATION=10s CONNECTIONS=64 THREADS=2 WARMUP=30s
#        GATEWAY_YAML="transport: epoll": more lines for the gateway's gateway.yaml)
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then  # the comment above, without its marks
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
RUNS="${RUNS:-5}"
DURATION="${DURATION:-10s}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
WARMUP="${WARMUP:-30s}"   # what a restarted or scaled-out gateway gets before it takes its share of traffic

need=()
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || need+=(nginx-light)
command -v wrk >/dev/null || need+=(wrk)
if ((${#need[@]})); then
  echo "installing: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# shellcheck source=common.sh
. "$here/common.sh"

echo "building the unitas jar and the Spring Cloud Gateway peer..."
(cd "$root" && mvn -B -ntp -q -pl unitas-cli -am package -DskipTests)
(cd "$here/scg" && mvn -B -ntp -q package -DskipTests)

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [[ -f "$work/backend/nginx.pid" ]] && kill "$(cat "$work/backend/nginx.pid")" 2>/dev/null || true
  [[ -f "$work/proxy/nginx.pid" ]] && kill "$(cat "$work/proxy/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

BACKEND=$(free_port); NGINX_PROXY=$(free_port); UNITAS=$(free_port); SCG=$(free_port)

# The backend every proxy sends to: a fixed small answer.
nginx_conf "$work/backend" "server { listen 127.0.0.1:$BACKEND; keepalive_requests 1000000;
  location / { return 200 'ok'; } }"
nginx_proxy "$work/proxy" "$NGINX_PROXY"

# The unitas gateway from static files: two regions, both served by the backend.
state_files "$work"
cat >"$work/gateway.yaml" <<YAML
region: cn
listen: 127.0.0.1:$UNITAS
workers: 1                         # as nginx's worker_processes 1
upstreams:
  cn: {endpoints: ["127.0.0.1:$BACKEND"]}
  eu: {endpoints: ["127.0.0.1:$BACKEND"]}
access_log: off
static: {topology: topology.yaml, rules: rules.yaml, health: health.yaml}
${GATEWAY_YAML:-}
YAML
# Through the launcher, so with the JVM options users get. Each proxy in a session of its own, as nginx's daemon is
# (see start_gateway in common.sh).
UNITAS_JAVA_OPTS="${GATEWAY_JAVA_OPTS:--Xmx512m}" setsid "$root/unitas" gateway --config "$work/gateway.yaml" \
  >"$work/unitas.log" 2>&1 &
pids+=($!)
setsid java -Xmx512m -jar "$here/scg/target/scg-peer.jar" --server.port="$SCG" \
  --backend.cn="http://127.0.0.1:$BACKEND" --backend.eu="http://127.0.0.1:$BACKEND" >"$work/scg.log" 2>&1 &
pids+=($!)

wait_up() { for _ in $(seq 1 120); do curl -fs -o /dev/null -H 'x-user-id: 1234' "http://127.0.0.1:$1/" && return 0; sleep 0.5; done
            echo "port $1 did not come up" >&2; cat "$work"/*.log >&2; exit 1; }
for p in $BACKEND $NGINX_PROXY $UNITAS $SCG; do wait_up "$p"; done

rps() { wrk -t"$THREADS" -c"$CONNECTIONS" -d"$1" -H 'x-user-id: 1234' "http://127.0.0.1:$2/" \
        | awk '/Requests\/sec/ {print $2}'; }

echo "warming up the JVMs..."
rps "$WARMUP" "$UNITAS" >/dev/null; rps "$WARMUP" "$SCG" >/dev/null

# The CPU time the hypervisor gave to other machines (steal), all CPUs: "steal total" in ticks, from /proc/stat.
steal_ticks() { awk '$1 == "cpu" {t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t}' /proc/stat; }
read -r steal0 total0 <<<"$(steal_ticks)"
NGINX_WORKER=$(pgrep -P "$(cat "$work/proxy/nginx.pid")" | head -1)
n_runs=(); u_runs=(); s_runs=(); n_cpu=(); u_cpu=(); s_cpu=()
for i in $(seq 1 "$RUNS"); do   # interleaved, so a burst of load elsewhere hits all three alike
  read -r r c <<<"$(measure "$NGINX_PROXY" "$NGINX_WORKER")"; n_runs+=("$r"); n_cpu+=("$c")
  read -r r c <<<"$(measure "$UNITAS" "${pids[0]}")"; u_runs+=("$r"); u_cpu+=("$c")
  read -r r c <<<"$(measure "$SCG" "${pids[1]}")"; s_runs+=("$r"); s_cpu+=("$c")
  echo "run $i (req/s): nginx ${n_runs[-1]}  unitas ${u_runs[-1]}  spring-cloud-gateway ${s_runs[-1]}"
done
nginx_rps=$(printf '%s\n' "${n_runs[@]}" | median)
unitas_rps=$(printf '%s\n' "${u_runs[@]}" | median)
scg_rps=$(printf '%s\n' "${s_runs[@]}" | median)

# p99 added over a direct call at a paced rate, half of nginx's peak, by the gateway and (for reference: what any
# proxy adds on this machine) by nginx. Each round calls the backend directly, then through each proxy, and what a
# proxy adds is taken within its round, against the direct call of the same minute: the load on a shared machine
# drifts from minute to minute more than the two proxies differ.
added_at() { # rate -> "direct_p99 unitas_added nginx_added rounds_where_unitas_added_no_more"
  local d u n u_added n_added no_more direct=() via=() ref=() fewer=0
  for i in $(seq 1 "$RUNS"); do
    d=$(p99_at "$BACKEND" "$1"); u=$(p99_at "$UNITAS" "$1"); n=$(p99_at "$NGINX_PROXY" "$1")
    read -r u_added n_added no_more <<<"$(awk -v i="$i" -v d="$d" -v u="$u" -v n="$n" 'BEGIN {
      printf "paced round %d (p99 ms): direct %.2f  unitas %.2f (%+.2f)  nginx %.2f (%+.2f)\n", i, d, u, u - d, n, n - d \
             > "/dev/stderr"
      print u - d, n - d, (u <= n) }')"
    direct+=("$d"); via+=("$u_added"); ref+=("$n_added"); fewer=$((fewer + no_more))
  done
  echo "$(printf '%s\n' "${direct[@]}" | median) $(printf '%s\n' "${via[@]}" | median)" \
       "$(printf '%s\n' "${ref[@]}" | median) $fewer"
}
half=$(awk -v r="$nginx_rps" 'BEGIN {printf "%d", r / 2}')
read -r direct_p99 unitas_added nginx_added fewer <<<"$(added_at "$half")"

nginx_cpu=$(printf '%s\n' "${n_cpu[@]}" | median)
unitas_cpu=$(printf '%s\n' "${u_cpu[@]}" | median)
scg_cpu=$(printf '%s\n' "${s_cpu[@]}" | median)

echo
echo "medians of $RUNS runs after $WARMUP of warm-up, wrk -t$THREADS -c$CONNECTIONS -d$DURATION, loopback," \
     "$(nproc) cores shared with everything else"
awk -v n="$nginx_cpu" -v u="$unitas_cpu" -v d="$direct_p99" -v g="$unitas_added" -v x="$nginx_added" -v r="$half" \
    -v k="$fewer" -v runs="$RUNS" 'BEGIN {
  verdict = "met"; if (u > n) verdict = "missed"
  printf "CPU per request: nginx %.1f us, unitas %.1f us; unitas / nginx = %.2f (target <= 1: %s)\n", n, u, u / n, verdict
  verdict = "met"; if (g > x) verdict = "missed"
  printf "p99 added at %d req/s (half of nginx peak; direct call %.3f ms): nginx %+.3f ms, unitas %+.3f ms" \
         " (target: unitas <= nginx: %s; unitas added no more in %d of %d rounds)\n", r, d, x, g, verdict, k, runs }'
echo
printf 'throughput (req/s): nginx %s  unitas %s  spring-cloud-gateway %s\n' "$nginx_rps" "$unitas_rps" "$scg_rps"
printf 'CPU per request (us): spring-cloud-gateway %s\n' "$scg_cpu"
awk -v u="$unitas_rps" -v n="$nginx_rps" -v s="$scg_rps" 'BEGIN {
  printf "unitas / nginx = %.2f (target >= 0.8)\nunitas / spring-cloud-gateway = %.2f (target >= 2)\n", u / n, u / s }'
read -r steal1 total1 <<<"$(steal_ticks)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); CPU time stolen by the hypervisor while measuring:" \
     "$(awk -v s=$((steal1 - steal0)) -v t=$((total1 - total0)) 'BEGIN {printf "%.1f%%", t ? 100 * s / t : 0}')"
