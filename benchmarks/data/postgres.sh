# Sourced by the data benchmarks: starts throw-away PostgreSQL servers on free ports (never the machine's default
# server), each in its own directory under one work directory, and stops and removes them all on exit.
#   pg_setup                      finds the server binaries, makes "$work", installs the cleanup trap
#   pg_start NAME durable|fast    starts a server, creates database "bench", sets pg_port (call it without $(...))
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
as_pg=()
[[ "$(id -u)" == 0 ]] && as_pg=(runuser -u postgres --)
pg_started=()

pg_setup() {
  [[ -x "$bin/initdb" ]] || { echo "$0: no PostgreSQL server under /usr/lib/postgresql (install Debian's postgresql)" >&2; exit 1; }
  work="$(mktemp -d /tmp/unitas-data-bench-XXXX)"
  chmod 755 "$work"
  [[ "$(id -u)" == 0 ]] && chown postgres: "$work"
  trap pg_cleanup EXIT
}

pg_cleanup() {
  for data in "${pg_started[@]}"; do
    "${as_pg[@]}" "$bin/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}

pg_start() {
  local name="$1" mode="$2" port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  "${as_pg[@]}" mkdir -p "$work/$name"
  "${as_pg[@]}" "$bin/initdb" -D "$work/$name/data" -U postgres -A trust -E UTF8 --locale=C >/dev/null
  {
    echo "port = $port"
    echo "listen_addresses = '127.0.0.1'"
    echo "unix_socket_directories = '$work/$name'"
    if [[ "$mode" == fast ]]; then echo "fsync = off"; echo "synchronous_commit = off"; fi
  } | "${as_pg[@]}" tee -a "$work/$name/data/postgresql.conf" >/dev/null
  "${as_pg[@]}" "$bin/pg_ctl" -D "$work/$name/data" -l "$work/$name/pg.log" -w start >/dev/null
  pg_started+=("$work/$name/data")
  "$bin/psql" -qAtX -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE bench" >/dev/null
  pg_port="$port"
}
