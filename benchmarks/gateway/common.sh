# Shared by the gateway's benchmark scripts: the nginx backend, the gateway's state files and the measurements.
# measure() and p99_at() read THREADS, CONNECTIONS and DURATION.

NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
# For the scripts that leave installing nginx and wrk to run.sh.
require_nginx_and_wrk() {
  [[ -x "$NGINX" ]] && command -v wrk >/dev/null || { echo "needs nginx and wrk (see run.sh)" >&2; exit 2; }
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Writes and starts an nginx with one worker in dir, serving the given http-level block.
nginx_conf() { # dir, server block
  mkdir -p "$1"
  cat >"$1/nginx.conf" <<CONF
worker_processes 1;
pid $1/nginx.pid;
error_log $1/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $1; proxy_temp_path $1; fastcgi_temp_path $1; uwsgi_temp_path $1; scgi_temp_path $1;
  $2
}
CONF
  "$NGINX" -c "$1/nginx.conf" -p "$1"
}

# nginx as the reference proxy on port, in front of the backend on BACKEND: the same header-based choice of upstream
# as the gateway's, keepalive connections to it.
nginx_proxy() { # dir, port
  nginx_conf "$1" "upstream cn { server 127.0.0.1:$BACKEND; keepalive 64; }
  upstream eu { server 127.0.0.1:$BACKEND; keepalive 64; }
  map \$http_x_user_id \$region { \"~^[0-4][0-9]{0,3}\$\" cn; default eu; }
  server { listen 127.0.0.1:$2; keepalive_requests 1000000;
    location / { proxy_pass http://\$region; proxy_http_version 1.1; proxy_set_header Connection '';
                 proxy_set_header x-unitas-region \$region; } }"
}

# Two regions and their units, both healthy: the state a static-mode gateway reads from dir.
state_files() { # dir
  local work="$1"
  cat >"$work/topology.yaml" <<YAML
regions: [cn, eu]
YAML
  cat >"$work/rules.yaml" <<YAML
units:
  - {id: u-cn, region: cn}
  - {id: u-eu, region: eu}
key:
  sources: [{header: x-user-id}]
  transform: mod 10000
ranges:
  - {range: 0~4999, unit: u-cn}
  - {range: 5000~9999, unit: u-eu}
YAML
  cat >"$work/health.yaml" <<YAML
cn: true
eu: true
YAML
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# CPU time a proxy spends per request (user + system, from /proc): less sensitive than req/s to what else runs.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# Each thread's CPU ticks (user + system) by its name, to split a process's CPU per request by what spends it.
thread_ticks() { for t in /proc/"$1"/task/*; do
                   printf '%s %s %s\n' "${t##*/}" "$(awk '{print $14 + $15}' "$t/stat")" "$(tr ' ' _ <"$t/comm")"
                 done | sort -k1,1; }
measure() { # port pid -> "req/s cpu-microseconds-per-request"
  local t0 t1 out
  t0=$(ticks "$2")
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -H 'x-user-id: 1234' "http://127.0.0.1:$1/")
  t1=$(ticks "$2")
  awk -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" '/requests in/ {n = $1} /Requests\/sec/ {r = $2}
    END {printf "%s %.1f\n", r, t * 1e6 / hz / n}' <<<"$out"
}

# The p50, p90 and p99 latencies (ms) of DURATION of load from CONNECTIONS connections on port, paced to rate
# requests/s in all: each connection waits between an answer and its next request (0: unpaced, the next at once).
latencies_at() { # port, rate
  local pacing=()
  if (($2 > 0)); then
    printf '%s\n' 'local pause' 'function init(args) pause = tonumber(args[1]) end' \
                  'function delay() return pause end' >"$work/rate.lua"
    pacing=(-s "$work/rate.lua")
  fi
  wrk -t"$((CONNECTIONS < THREADS ? CONNECTIONS : THREADS))" -c"$CONNECTIONS" -d"$DURATION" --latency "${pacing[@]}" \
      -H 'x-user-id: 1234' "http://127.0.0.1:$1/" -- "$(($2 > 0 ? CONNECTIONS * 1000 / $2 : 0))" |
    awk 'function ms(v) {if (v ~ /us$/) {sub(/us/, "", v); return v / 1000}
                         if (v ~ /ms$/) {sub(/ms/, "", v); return v + 0}; sub(/s/, "", v); return v * 1000}
         $1 == "50%" {p50 = ms($2)} $1 == "90%" {p90 = ms($2)} $1 == "99%" {p99 = ms($2)}
         END {print p50, p90, p99}'
}
p99_at() { latencies_at "$@" | cut -d' ' -f3; } # port, rate

# Two gateways side by side, A on PA and B on PB, in front of one nginx backend on BACKEND, in a fresh work dir
# removed on exit with every process started here (pids).
two_gateways() {
  work="$(mktemp -d)"
  pids=()
  trap stop_two_gateways EXIT
  BACKEND=$(free_port); PA=$(free_port); PB=$(free_port)
  nginx_conf "$work/backend" "server { listen 127.0.0.1:$BACKEND; keepalive_requests 1000000;
  location / { return 200 'ok'; } }"
  state_files "$work"
}
# The jar built from root, then two_gateways with gateway A (options, YAML_A's lines) on PA and B (YAML_B) on PB;
# with JAR_A, gateway A runs that jar instead (another build of unitas, to compare two versions of the code).
two_gateways_running() { # options A, options B
  (cd "$root" && mvn -B -ntp -q -pl unitas-cli -am package -DskipTests)
  two_gateways
  start_gateway "$PA" "$1" "${JAR_A:-$root/unitas-cli/target/unitas.jar}" "${YAML_A:-}"
  start_gateway "$PB" "$2" "$root/unitas-cli/target/unitas.jar" "${YAML_B:-}"
}
stop_two_gateways() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for n in backend proxy; do  # the proxy when a script started one (nginx_proxy)
    [[ -f "$work/$n/nginx.pid" ]] && kill "$(cat "$work/$n/nginx.pid")" 2>/dev/null || true
  done
  rm -rf "$work"
}

# One gateway (one worker, access log off, the state files) on port with the JVM options, from jar; waits until it
# answers (up to a minute). In a session of its own, as nginx's daemon is and as a service manager starts it: the
# kernel's autogroup scheduling shares CPU between sessions first, so a gateway started in this shell's session
# would share one share with wrk while nginx had one to itself.
start_gateway() { # port, options, jar[, more lines of gateway.yaml such as "transport: epoll"]
  cat >"$work/gw-$1.yaml" <<YAML
region: cn
listen: 127.0.0.1:$1
workers: 1
upstreams: {cn: {endpoints: ["127.0.0.1:$BACKEND"]}, eu: {endpoints: ["127.0.0.1:$BACKEND"]}}
access_log: off
static: {topology: topology.yaml, rules: rules.yaml, health: health.yaml}
${4:-}
YAML
  # shellcheck disable=SC2086
  setsid java -Xmx512m $2 -jar "$3" gateway --config "$work/gw-$1.yaml" >"$work/gw-$1.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 120); do curl -fs -o /dev/null -H 'x-user-id: 1' "http://127.0.0.1:$1/" && return; sleep 0.5; done
}
