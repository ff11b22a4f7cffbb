#!/usr/bin/env bash
# Health change → changed answer, static files: unitas dns serves dns.yaml's zone from a health file that this
# script rewrites FLIPS times (cn down, cn up, ...), while a client asks for www as a client of cn (EDNS Client
# Subnet 10.1.0.0/16) every POLL_MS; each flip's latency is the time from the file's rename to the first answer
# from the new region. Prints the median, p99 and max against the target (p99 <= 1 s). The hold-down is 0 s here
# (HOLD_DOWN), so a recovery is as quick as a fault; with the default 5 s a recovered cn answers 5 s later, by design.
# Usage: benchmarks/dns/health-change.sh   (env: FLIPS=50 RELOAD=1s POLL_MS=5 HOLD_DOWN=0s)
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then  # the comment above, without its marks
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
FLIPS="${FLIPS:-50}"
RELOAD="${RELOAD:-1s}"
POLL_MS="${POLL_MS:-5}"
HOLD_DOWN="${HOLD_DOWN:-0s}"
export RELOAD HOLD_DOWN

work="$(mktemp -d)"
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -e "s/@LISTEN@/127.0.0.1:$port/" \
    -e "s|static: {topology: topology.yaml, health: health.yaml}|static: {topology: topology.yaml, health: health.yaml, reload_interval: $RELOAD}|" \
    "$here/dns.yaml" >"$work/dns.yaml"
echo "hold_down: $HOLD_DOWN" >>"$work/dns.yaml"
echo "regions: [cn, eu, us]" >"$work/topology.yaml"
echo "{cn: true, eu: true, us: true}" >"$work/health.yaml"
"$root/unitas" dns --config "$work/dns.yaml" >"$work/unitas.log" 2>&1 &
pid=$!

PYTHONPATH="$here" python3 - "$port" "$work" "$FLIPS" "$POLL_MS" <<'PY'
import os, sys
from flips import asker, await_answer, summary, time_flips
port, work, flips, poll = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) / 1000
tmp = os.path.join(work, "health.yaml.tmp")

def write(down):
    with open(tmp, "w") as f:
        f.write("{cn: %s, eu: true, us: true}\n" % ("false" if down else "true"))

ask = asker(port)
await_answer(ask, lambda a: a is not None, "unitas dns did not answer; see its log")
latencies = time_flips(ask, flips, poll, lambda down: os.replace(tmp, os.path.join(work, "health.yaml")), write)
print("%d flips, reload_interval %s, hold_down %s, polled every %d ms"
      % (flips, os.environ.get("RELOAD", "1s"), os.environ.get("HOLD_DOWN", "0s"), poll * 1000))
summary(latencies, "file renamed -> changed answer")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
