#!/usr/bin/env bash
# Control-plane change → changed answer: unitas dns follows a control plane (`unitas control`, its watch stream, as
# the gateways do) for dns.yaml's zone; this script sends FLIPS health reports for cn through the control plane's API
# (PUT /api/v1/health/cn: cn down, cn up, ...) while a client of cn (EDNS Client Subnet 10.1.0.0/16) asks for www
# every POLL_MS; each flip's latency is the time from sending the report to the first answer from the new region. A
# health report is the change that moves DNS answers: DNS reads the plane's topology and health, not its unit rules
# or fences, which are the gateways' business. Prints the median, p99 and max against the target (p99 <= 1 s). The
# hold-down is 0 s here (HOLD_DOWN), so a recovery is timed like a fault.
# Usage: benchmarks/dns/control-change.sh   (env: FLIPS=50 POLL_MS=5 HOLD_DOWN=0s)
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then  # the comment above, without its marks
  sed -n "2,$((${LINENO} - 3))p" "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
FLIPS="${FLIPS:-50}"
POLL_MS="${POLL_MS:-5}"
HOLD_DOWN="${HOLD_DOWN:-0s}"
export HOLD_DOWN

work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
dns_port=$(free_port)
control_port=$(free_port)

# One admin token (the script: topology and health reports) and one viewer token (unitas dns's watch).
python3 - "$work" <<'PY'
import hashlib, os, secrets, sys
work = sys.argv[1]
admin, viewer = "utk_" + secrets.token_urlsafe(32), "utk_" + secrets.token_urlsafe(32)
h = lambda s: "sha256:" + hashlib.sha256(s.encode()).hexdigest()
open(work + "/tokens", "w").write("bench admin %s\ndns viewer %s\n" % (h(admin), h(viewer)))
for name, secret in (("admin.token", admin), ("viewer.token", viewer)):
    # a token's file is its owner's only: unitas dns refuses one that others may read
    with open(os.open(work + "/" + name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(secret)
PY

"$root/unitas" control --port "$control_port" --data "$work/control" --tokens "$work/tokens" \
    --health-ttl 1h --health-grace 1h >"$work/control.log" 2>&1 &
pids+=($!)

sed -e "s/@LISTEN@/127.0.0.1:$dns_port/" \
    -e "s|static: {topology: topology.yaml, health: health.yaml}|control_plane: {url: 'http://127.0.0.1:$control_port', token_file: '$work/viewer.token', state_file: '$work/dns-state.json'}|" \
    "$here/dns.yaml" >"$work/dns.yaml"
echo "hold_down: $HOLD_DOWN" >>"$work/dns.yaml"

PYTHONPATH="$here" python3 - "$dns_port" "$control_port" "$work" "$FLIPS" "$POLL_MS" "$root" <<'PY'
import datetime, json, os, subprocess, sys, time, urllib.request
from flips import asker, await_answer, summary, time_flips
dns_port, control_port, work, flips, poll, root = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3],
                                                   int(sys.argv[4]), int(sys.argv[5]) / 1000, sys.argv[6])
admin = open(work + "/admin.token").read()
api = "http://127.0.0.1:%d/api/v1" % control_port

def call(method, path, body=None, headers=None):
    req = urllib.request.Request(api + path, method=method, data=None if body is None else body.encode(),
                                 headers=dict({"authorization": "Bearer " + admin,
                                               "content-type": "application/json"}, **(headers or {})))
    with urllib.request.urlopen(req, timeout=10) as res:
        return res.status, res.headers.get("etag"), res.read()

deadline = time.time() + 120
while True:
    try:
        status, etag, body = call("GET", "/state")
        break
    except OSError:
        if time.time() > deadline:
            sys.exit("unitas control did not answer; see its log")
        time.sleep(0.2)
revision = json.loads(body).get("revision", 0)
call("PUT", "/topology", '{"regions":[{"id":"cn"},{"id":"eu"},{"id":"us"}]}', {"if-match": '"%d"' % revision})

sequence = 0
def report(region, healthy):
    global sequence
    sequence += 1
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    call("PUT", "/health/" + region, json.dumps({
        "region": region, "sequence": sequence, "observed_at": now, "healthy": healthy, "writable": healthy,
        "replication_lag_ms": 0, "score": 1 if healthy else 0, "reasons": [], "checks": {}}))

for r in ("cn", "eu", "us"):
    report(r, True)

dns = subprocess.Popen([root + "/unitas", "dns", "--config", work + "/dns.yaml"],
                       stdout=open(work + "/unitas.log", "w"), stderr=subprocess.STDOUT)
try:
    ask = asker(dns_port)
    await_answer(ask, lambda a: a == "10.0.1.1", "unitas dns did not answer from cn; see its log")
    latencies = time_flips(ask, flips, poll, lambda down: report("cn", not down))
    print("%d flips through the control plane's API, hold_down %s, polled every %d ms"
          % (flips, os.environ.get("HOLD_DOWN", "0s"), poll * 1000))
    summary(latencies, "report sent -> changed answer")
finally:
    dns.terminate()
    dns.wait(10)
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
