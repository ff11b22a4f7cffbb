#!/usr/bin/env bash
# How much a gateway's CPU per request depends on its launch: starts the gateway LAUNCHES times one after the other
# (cycling through the JVM option sets given, so that A and B launches interleave), loads each for WARMUP, then
# measures MEASURES times DURATION of load and prints per launch the CPU time per request, split by thread: the event
# loop, the JIT compilers, the collector and the rest; a launch's figure is the median of its runs. Each run also
# splits the loop's CPU into user and system time, counts its system calls (with perf) and says which CPU it ran on,
# and is followed by a run of nginx as the reference proxy, split the same way: what the machine's drift does to a
# process without a JIT. With LOGS=dir each launch's output (what -XX:+PrintCompilation and the like print) is kept
# there as launch-N.log; with JFR=1 also a flight recording of the whole launch from its warm-up on (the JDK's
# profile settings, every compilation and inlining decision) as launch-N.jfr, and the gateway's runs' start and end
# (epoch milliseconds) as launch-N.windows.
#   benchmarks/gateway/launches.sh "-XX:+UseParallelGC -Dio.netty.leakDetection.level=disabled"
# Usage: benchmarks/gateway/launches.sh "OPTIONS_A" ["OPTIONS_B" ...]
#        (env: LAUNCHES=6 MEASURES=2 DURATION=8s WARMUP=30s JAR=unitas-cli/target/unitas.jar LOGS=dir JFR=1
#         GATEWAY_YAML="transport: epoll": more lines for every launch's gateway.yaml)
set -euo pipefail
if [[ "${1:-}" == --help || "${1:-}" == -h || $# -lt 1 ]]; then
  sed -n '2,15p' "$0" | cut -c3-
  [[ "${1:-}" == --help || "${1:-}" == -h ]] && exit 0 || exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
LAUNCHES="${LAUNCHES:-6}"; MEASURES="${MEASURES:-2}"; DURATION="${DURATION:-8s}"; WARMUP="${WARMUP:-30s}"
THREADS=2; CONNECTIONS=64
JAR="${JAR:-$root/unitas-cli/target/unitas.jar}"
# shellcheck source=common.sh
. "$here/common.sh"
require_nginx_and_wrk
[[ -f "$JAR" ]] || (cd "$root" && mvn -B -ntp -q -pl unitas-cli -am package -DskipTests)

two_gateways
# The launcher's class-data archive, written once by a launch that is not measured, so that every measured launch
# starts as the launcher's do.
cds="$work/gateway.jsa"
start_gateway "$PA" "-XX:ArchiveClassesAtExit=$cds -Xlog:cds=off -Xlog:cds+dynamic=off" "$JAR"
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true; pids=()

# nginx as the reference proxy, measured after each of the gateway's runs: a process without a JIT, whose CPU per
# request moves only with the machine.
NGINX_PROXY=$(free_port)
nginx_proxy "$work/proxy" "$NGINX_PROXY"
nginx_worker=""
for _ in $(seq 1 50); do  # the master writes its pid file and forks its worker after nginx returns
  [[ -s "$work/proxy/nginx.pid" ]] && nginx_worker=$(pgrep -P "$(cat "$work/proxy/nginx.pid")" | head -1) || true
  [[ -n "$nginx_worker" ]] && break
  sleep 0.1
done

# The event loops' threads of a gateway, comma-separated.
loop_threads() { for t in /proc/"$1"/task/*; do
                   [[ "$(cat "$t/comm")" == unitas-gateway-* ]] && echo "${t##*/}"
                 done | paste -sd,; }
# The user and system ticks of a process's threads (comma-separated), and the CPU the first of them last ran on.
thread_times() { for t in ${2//,/ }; do awk '{print $14, $15, $39}' "/proc/$1/task/$t/stat"; done |
                   awk 'NR == 1 {c = $3} {u += $1; s += $2} END {print u, s, c}'; }
# Whether the kernel counts system calls per thread for us (perf, with its tracepoints readable).
counts_syscalls=$(perf stat -x, -e raw_syscalls:sys_enter -- true >/dev/null 2>&1 && echo true || echo false)

# One run of load on port, with a process's threads watched: wrk's output in $work/wrk, then
# "requests req/s user-us system-us syscalls-per-request cpu" for those threads.
watched_run() { # port pid threads
  local perf="" u0 s0 u1 s1 cpu
  read -r u0 s0 _ <<<"$(thread_times "$2" "$3")"
  if $counts_syscalls; then
    perf stat -x, -o "$work/syscalls" -e raw_syscalls:sys_enter -t "$3" & perf=$!
  fi
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -H 'x-user-id: 1234' "http://127.0.0.1:$1/" >"$work/wrk"
  [[ -z "$perf" ]] || { kill -INT "$perf"; wait "$perf" || true; }
  read -r u1 s1 cpu <<<"$(thread_times "$2" "$3")"
  awk -v hz="$(getconf CLK_TCK)" -v du=$((u1 - u0)) -v ds=$((s1 - s0)) -v cpu="$cpu" \
      -v calls="$([[ -z "$perf" ]] || awk -F, '/raw_syscalls/ {print $1}' "$work/syscalls")" '
    /requests in/ {n = $1} /Requests\/sec/ {r = $2}
    END { u = 1e6 / hz / n
          printf "%d %s %.1f %.1f %s %s\n", n, r, du * u, ds * u, calls == "" ? "-" : sprintf("%.2f", calls / n), cpu }' \
      "$work/wrk"
}

# port pid -> "req/s us-per-request loop jit gc other loop-user loop-system loop-syscalls-per-request loop-cpu"
measure_split() {
  local n r rest
  thread_ticks "$2" >"$work/ticks0"
  read -r n r rest <<<"$(watched_run "$1" "$2" "$(loop_threads "$2")")"
  thread_ticks "$2" >"$work/ticks1"
  join "$work/ticks0" "$work/ticks1" | awk -v hz="$(getconf CLK_TCK)" -v n="$n" -v r="$r" -v rest="$rest" '{
      d = $4 - $2
      if ($3 ~ /^unitas-gateway-/) p = 1; else if ($3 ~ /Compiler/) p = 2; else if ($3 ~ /^GC_|^VM_Thread/) p = 3
      else p = 4
      t[p] += d; total += d }
    END { u = 1e6 / hz / n
          printf "%s %.1f %.1f %.1f %.1f %.1f %s\n", r, total * u, t[1] * u, t[2] * u, t[3] * u, t[4] * u, rest }'
}

# The reference's run: "req/s us-per-request user system syscalls-per-request cpu".
measure_reference() {
  local n r u s rest
  read -r n r u s rest <<<"$(watched_run "$NGINX_PROXY" "$nginx_worker" "$nginx_worker")"
  awk -v r="$r" -v u="$u" -v s="$s" -v rest="$rest" 'BEGIN {printf "%s %.1f %s %s %s\n", r, u + s, u, s, rest}'
}

# The JDK's profile settings with every compilation (not only those over 100 ms) and every inlining decision.
jfc="$(dirname "$(readlink -f "$(command -v java)")")/../lib/jfr/profile.jfc"
sed -e 's|control="compiler-compilation-threshold">[^<]*<|control="compiler-compilation-threshold">0 ms<|' \
    -e 's|control="compiler-enabled-failure">false<|control="compiler-enabled-failure">true<|' "$jfc" >"$work/jit.jfc"
opts=("$@")
for i in $(seq 1 "$LAUNCHES"); do
  o=$(((i - 1) % ${#opts[@]})); x=$(printf "\\x$(printf %x $((65 + o)))")
  port=$(free_port)
  start_gateway "$port" "-XX:SharedArchiveFile=$cds -Xlog:cds=off -Xlog:cds+dynamic=off ${opts[$o]}" "$JAR" "${GATEWAY_YAML:-}"
  recording=$([[ -n "${LOGS:-}" && "${JFR:-}" == 1 ]] && echo "$LOGS/launch-$i" || true)
  [[ -z "$recording" ]] || { mkdir -p "$LOGS"; : >"$recording.windows"
                             jcmd "${pids[0]}" JFR.start name=launch settings="$work/jit.jfc" >/dev/null; }
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -H 'x-user-id: 1234' "http://127.0.0.1:$port/" >/dev/null
  for _ in $(seq 1 "$MEASURES"); do
    t0=$(date +%s%3N)
    measure_split "$port" "${pids[0]}" >>"$work/launch"
    [[ -z "$recording" ]] || echo "$t0 $(date +%s%3N)" >>"$recording.windows"
    measure_reference >>"$work/reference"
  done
  [[ -z "$recording" ]] || jcmd "${pids[0]}" JFR.stop name=launch filename="$recording.jfr" >/dev/null
  kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true; pids=()
  if [[ -n "${LOGS:-}" ]]; then mkdir -p "$LOGS"; cp "$work/gw-$port.log" "$LOGS/launch-$i.log"; fi
  printf '%s launch %d: %s us CPU per request (runs: %s); loop %s, JIT %s, GC %s, other %s; load %s\n' "$x" "$i" \
    "$(awk '{print $2}' "$work/launch" | median)" "$(awk '{printf "%s%s", s, $2; s = " "}' "$work/launch")" \
    "$(awk '{print $3}' "$work/launch" | median)" "$(awk '{print $4}' "$work/launch" | median)" \
    "$(awk '{print $5}' "$work/launch" | median)" "$(awk '{print $6}' "$work/launch" | median)" \
    "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$work/launches"
  # The loop's own split tells code (user time) from the kernel's work for it (system time, per system call).
  paste -d' ' "$work/launch" "$work/reference" | awk '{
    printf "    run %d: loop user %s us, system %s us, %s system calls per request, on CPU %s;" \
           " nginx %s us (user %s, system %s, %s system calls), on CPU %s\n", NR, $7, $8, $9, $10, $12, $13, $14, $15, $16 }'
  echo "$x $(awk '{print $2}' "$work/reference" | median)" >>"$work/references"
  rm -f "$work/launch" "$work/reference"
done
for o in "${!opts[@]}"; do
  x=$(printf "\\x$(printf %x $((65 + o)))")
  echo "$x: launches' medians $(awk -v x="$x" '$1 == x {printf "%s%s", s, $4; s = " "}' "$work/launches");" \
       "median $(awk -v x="$x" '$1 == x {print $4}' "$work/launches" | median) us; options '${opts[$o]}'"
  echo "   nginx beside them: $(awk -v x="$x" '$1 == x {printf "%s%s", s, $2; s = " "}' "$work/references") us"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
