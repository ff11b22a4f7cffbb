#!/usr/bin/env bash
# Side by side: unitas dns against gdnsd (geoip plugin, networks from its config), both authoritative for the same
# zone with the same geo answers, loaded by dnsperf over UDP with an EDNS Client Subnet that locates the client in
# cn. Prints the medians of RUNS runs and the ratios unitas dns is held to:
#   queries per second >= 0.8 x gdnsd's; p99 latency at half of gdnsd's peak rate <= 1.5 x gdnsd's.
# unitas runs with its bounds on: /metrics, the TCP limits, and a rate limit above the load (every answer is
# metered, none is limited).
# Given two jars (say the code before a change and after it), runs a unitas dns from each beside gdnsd and measures
# the three in every round, the two unitas ones in turns (A B, B A, A B, ...), so that a change is compared only
# with what ran beside it; it prints both against gdnsd and B against A.
#   benchmarks/dns/run.sh /tmp/before/unitas-cli/target/unitas.jar unitas-cli/target/unitas.jar
# Usage: benchmarks/dns/run.sh [JAR_A JAR_B]   (env: RUNS=3 DURATION=10 CLIENTS=4 OUTSTANDING=100 WARMUP=60)
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" || $# -eq 1 || $# -gt 2 ]]; then  # the comment above, unmarked
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]] && exit 0 || exit 2
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

if (($# == 2)); then
  jars=("$(realpath "$1")" "$(realpath "$2")"); names=(A B)
  for j in "${jars[@]}"; do [[ -f "$j" ]] || { echo "no such jar: $j" >&2; exit 2; }; done
else
  echo "building the unitas jar..."
  (cd "$root" && mvn -B -ntp -q -pl unitas-cli -am package -DskipTests)
  jars=("$root/unitas-cli/target/unitas.jar"); names=(unitas)
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

GD=$(free_port)
mkdir -p "$work/gdnsd/zones"
sed "s/@LISTEN@/127.0.0.1:$GD/" "$here/gdnsd.config" >"$work/gdnsd/config"
cp "$here/shop.example.zone" "$work/gdnsd/zones/shop.example"
echo "regions: [cn, eu, us]" >"$work/topology.yaml"
echo "{cn: true, eu: true, us: true}" >"$work/health.yaml"
"$GDNSD" -c "$work/gdnsd" start >"$work/gdnsd.log" 2>&1 &
pids+=($!)

# One unitas dns per jar, each with its own ports and dns.yaml; run as the unitas launcher runs it.
ports=(); metrics=()
for i in "${!jars[@]}"; do
  ports+=("$(free_port)"); metrics+=("$(free_port)")
  sed -e "s/@LISTEN@/127.0.0.1:${ports[$i]}/" -e "s/@METRICS@/127.0.0.1:${metrics[$i]}/" "$here/dns.yaml" \
      >"$work/dns-$i.yaml"
  # shellcheck disable=SC2086
  java -XX:+ExitOnOutOfMemoryError ${DNS_JAVA_OPTS:--Xmx256m} -jar "${jars[$i]}" dns --config "$work/dns-$i.yaml" \
      >"$work/unitas-$i.log" 2>&1 &
  pids+=($!)
done

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
wait_up "$GD"; for p in "${ports[@]}"; do wait_up "$p"; done

# All answer the same: cn's two addresses.
for p in "$GD" "${ports[@]}"; do
  perf "$p" 1 100 v | awk '$1 == ">" {print $2}' | sort | uniq -c | sed "s/^/  port $p: /" | head -3
done

echo "warming up (${WARMUP}s each)..."
for p in "${ports[@]}"; do qps "$p" "$WARMUP" >/dev/null; done
qps "$GD" "$WARMUP" >/dev/null

# Each round measures gdnsd, then the unitas servers, two of them in turns (A B, then B A, ...), so that a burst of
# load elsewhere hits all alike. measure FILE_PREFIX COMMAND... appends each server's figure to FILE_PREFIX-<index>.
order() { # round -> indexes of the unitas servers in this round's order
  if (( ${#ports[@]} == 2 && $1 % 2 == 0 )); then echo 1 0; else seq 0 $((${#ports[@]} - 1)); fi
}
: >"$work/q-g"; for i in "${!ports[@]}"; do : >"$work/q-$i"; : >"$work/p-$i"; done; : >"$work/p-g"
for r in $(seq 1 "$RUNS"); do
  line="gdnsd $(qps "$GD" "$DURATION" | tee -a "$work/q-g")"
  for i in $(order "$r"); do line+="  ${names[$i]} $(qps "${ports[$i]}" "$DURATION" | tee -a "$work/q-$i")"; done
  echo "run $r (queries/s): $line"
done
g_qps=$(median <"$work/q-g")
half=$(awk -v r="$g_qps" 'BEGIN {printf "%d", r / 2}')
for r in $(seq 1 "$RUNS"); do
  line="gdnsd $(p99_at "$GD" "$half" | tee -a "$work/p-g")"
  for i in $(order "$r"); do line+="  ${names[$i]} $(p99_at "${ports[$i]}" "$half" | tee -a "$work/p-$i")"; done
  echo "run $r (p99 ms at $half queries/s): $line"
done
gp=$(median <"$work/p-g")

echo
echo "medians of $RUNS runs, dnsperf -c $CLIENTS -q $OUTSTANDING -l $DURATION over UDP with ECS, loopback," \
     "$(nproc) cores shared with everything else"
for i in "${!ports[@]}"; do
  n=${names[$i]}; q=$(median <"$work/q-$i"); p=$(median <"$work/p-$i")
  echo "${n}: ${jars[$i]}"
  printf '  queries/s: gdnsd %s  %s %s\n' "$g_qps" "$n" "$q"
  awk -v n="$n" -v u="$q" -v g="$g_qps" 'BEGIN {printf "  %s / gdnsd = %.2f (target >= 0.8)\n", n, u / g}'
  awk -v n="$n" -v g="$gp" -v u="$p" -v r="$half" 'BEGIN {
    printf "  p99 at %d queries/s (half of gdnsd peak): gdnsd %.3f ms, %s %.3f ms, ratio %.2f (target <= 1.5)\n",
           r, g, n, u, (g > 0 ? u / g : 0) }'
done
if ((${#ports[@]} == 2)); then
  awk -v a="$(median <"$work/q-0")" -v b="$(median <"$work/q-1")" -v pa="$(median <"$work/p-0")" \
      -v pb="$(median <"$work/p-1")" \
      'BEGIN {printf "B / A: queries/s %.2f, p99 %.2f\n", b / a, (pa > 0 ? pb / pa : 0)}'
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# every answer went through the rate limit, and none was limited
for i in "${!ports[@]}"; do
  curl -s "http://127.0.0.1:${metrics[$i]}/metrics" | grep '^unitas_dns_rate_limited_total' | sed "s/^/${names[$i]}: /" || true
done
