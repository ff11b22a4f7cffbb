#!/usr/bin/env bash
# Side by side: unitas dns against gdnsd (geoip plugin, networks from its config), both authoritative for the same
# zone with the same geo answers, loaded by dnsperf over UDP with an EDNS Client Subnet that locates the client in
# cn. Prints the medians of RUNS runs and the ratios unitas dns is held to:
#   queries per second >= 0.8 x gdnsd's; p99 latency at half of gdnsd's peak rate <= 1.5 x gdnsd's.
# unitas runs with its bounds on: /metrics, the TCP limits, and a rate limit above the load (every answer is
# metered, none is limited).
# Usage: benchmarks/dns/run.sh   (env: RUNS=3 DURATION=10 CLIENTS=4 OUTSTANDING=100 WARMUP=60)
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then  # the comment above, without its marks
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
RUNS="${RUNS:-3}"
DURATION="${DURATION:-10}"        # seconds per measurement
CLIENTS="${CLIENTS:-4}"
OUTSTANDING="${OUTSTANDING:-100}"
WARMUP="${WARMUP:-60}"            # seconds of load before measuring, for the JIT

need=()
command -v gdnsd >/dev/null || [[ -x /usr/sbin/gdnsd ]] || need+=(gdnsd)
command -v dnsperf >/dev/null || need+=(dnsperf)
if ((${#need[@]})); then
  echo "installing: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
GDNSD="$(command -v gdnsd || echo /usr/sbin/gdnsd)"

echo "building the unitas jar..."
(cd "$root" && mvn -B -ntp -q -pl unitas-cli -am package -DskipTests)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

GD=$(free_port); UN=$(free_port)
mkdir -p "$work/gdnsd/zones"
sed "s/@LISTEN@/127.0.0.1:$GD/" "$here/gdnsd.config" >"$work/gdnsd/config"
cp "$here/shop.example.zone" "$work/gdnsd/zones/shop.example"
MP=$(free_port)
sed -e "s/@LISTEN@/127.0.0.1:$UN/" -e "s/@METRICS@/127.0.0.1:$MP/" "$here/dns.yaml" >"$work/dns.yaml"
echo "regions: [cn, eu, us]" >"$work/topology.yaml"
echo "{cn: true, eu: true, us: true}" >"$work/health.yaml"

"$GDNSD" -c "$work/gdnsd" start >"$work/gdnsd.log" 2>&1 &
pids+=($!)
UNITAS_JAVA_OPTS="${DNS_JAVA_OPTS:--Xmx256m}" "$root/unitas" dns --config "$work/dns.yaml" >"$work/unitas.log" 2>&1 &
pids+=($!)

# The query every client sends: www A with a client subnet of 10.1.2.0/24 (cn), so both answer from their geo map.
echo "www.shop.example A" >"$work/queries"
ECS="8:000118000a0102"
perf() { # port, seconds, [max qps] -> dnsperf's report
  dnsperf -s 127.0.0.1 -p "$1" -d "$work/queries" -c "$CLIENTS" -q "$OUTSTANDING" -l "$2" -E "$ECS" \
          ${3:+-Q "$3"} ${4:+-v} 2>/dev/null
}
qps() { perf "$1" "$2" | awk '/Queries per second/ {print $4}'; }
# p99 in ms at a paced rate, from dnsperf's per-query report (-v): the last field of each answer line is seconds.
p99_at() { # port, qps
  perf "$1" "$DURATION" "$2" v | awk '$1 == ">" && $2 == "NOERROR" {print $NF * 1000}' | sort -g \
    | awk '{a[NR] = $1} END {if (NR == 0) {print "nan"} else {i = int(NR * 0.99 + 0.5); if (i < 1) i = 1; print a[i]}}'
}

wait_up() { for _ in $(seq 1 120); do
              perf "$1" 1 | grep -q 'Queries completed: *[1-9]' && return 0
              sleep 0.5; done
            echo "port $1 did not come up" >&2; cat "$work"/*.log >&2; exit 1; }
wait_up "$GD"; wait_up "$UN"

# Both answer the same: cn's two addresses.
for p in "$GD" "$UN"; do
  perf "$p" 1 100 v | awk '$1 == ">" {print $2}' | sort | uniq -c | sed "s/^/  port $p: /" | head -3
done

echo "warming up (${WARMUP}s each)..."
qps "$UN" "$WARMUP" >/dev/null; qps "$GD" "$WARMUP" >/dev/null

g_runs=(); u_runs=()
for i in $(seq 1 "$RUNS"); do   # interleaved, so a burst of load elsewhere hits both alike
  g_runs+=("$(qps "$GD" "$DURATION")"); u_runs+=("$(qps "$UN" "$DURATION")")
  echo "run $i (queries/s): gdnsd ${g_runs[-1]}  unitas ${u_runs[-1]}"
done
g_qps=$(printf '%s\n' "${g_runs[@]}" | median)
u_qps=$(printf '%s\n' "${u_runs[@]}" | median)
half=$(awk -v r="$g_qps" 'BEGIN {printf "%d", r / 2}')
g_p99=(); u_p99=()
for i in $(seq 1 "$RUNS"); do
  g_p99+=("$(p99_at "$GD" "$half")"); u_p99+=("$(p99_at "$UN" "$half")")
done
gp=$(printf '%s\n' "${g_p99[@]}" | median)
up=$(printf '%s\n' "${u_p99[@]}" | median)

echo
echo "medians of $RUNS runs, dnsperf -c $CLIENTS -q $OUTSTANDING -l $DURATION over UDP with ECS, loopback," \
     "$(nproc) cores shared with everything else"
printf 'queries/s: gdnsd %s  unitas %s\n' "$g_qps" "$u_qps"
awk -v u="$u_qps" -v g="$g_qps" 'BEGIN {printf "unitas / gdnsd = %.2f (target >= 0.8)\n", u / g}'
awk -v g="$gp" -v u="$up" -v r="$half" 'BEGIN {
  printf "p99 at %d queries/s (half of gdnsd peak): gdnsd %.3f ms, unitas %.3f ms, ratio %.2f (target <= 1.5)\n",
         r, g, u, (g > 0 ? u / g : 0) }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# every answer went through the rate limit, and none was limited
curl -s "http://127.0.0.1:$MP/metrics" | grep '^unitas_dns_rate_limited_total' || true
