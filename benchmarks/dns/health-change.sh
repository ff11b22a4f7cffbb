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

python3 - "$port" "$work" "$FLIPS" "$POLL_MS" <<'PY'
import os, random, socket, struct, sys, time
port, work, flips, poll = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) / 1000

def query(qid):
    name = b"".join(bytes([len(l)]) + l for l in b"www.shop.example".split(b".")) + b"\0"
    ecs = struct.pack("!HHHBBBB", 8, 6, 1, 16, 0, 10, 1)  # client subnet 10.1.0.0/16: cn
    opt = b"\0" + struct.pack("!HHIH", 41, 1232, 0, len(ecs)) + ecs
    return struct.pack("!HHHHHH", qid, 0, 1, 0, 0, 1) + name + struct.pack("!HH", 1, 1) + opt

def first_address(packet):
    an = struct.unpack("!H", packet[6:8])[0]
    if an == 0:
        return None
    i = 12
    while packet[i] != 0:
        i += packet[i] + 1
    i += 5  # the question's root label, type and class
    i += 2 if packet[i] & 0xC0 == 0xC0 else packet.index(b"\0", i) - i + 1
    rdlength = struct.unpack("!H", packet[i + 8:i + 10])[0]
    return socket.inet_ntoa(packet[i + 10:i + 10 + rdlength]) if rdlength == 4 else None

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1)
def ask():
    s.sendto(query(7), ("127.0.0.1", port))
    try:
        return first_address(s.recv(4096))
    except socket.timeout:
        return None

deadline = time.time() + 120
while ask() is None:
    if time.time() > deadline:
        sys.exit("unitas dns did not answer; see its log")
    time.sleep(0.2)

latencies = []
rng = random.Random(1)
for n in range(flips):
    time.sleep(rng.uniform(0, 1.2))  # so flips fall anywhere in the reload interval, not just after a reload
    down = n % 2 == 0
    want = "10.0.2.1" if down else "10.0.1.1"
    tmp = os.path.join(work, "health.yaml.tmp")
    with open(tmp, "w") as f:
        f.write("{cn: %s, eu: true, us: true}\n" % ("false" if down else "true"))
    t0 = time.monotonic()
    os.replace(tmp, os.path.join(work, "health.yaml"))
    while ask() != want:
        if time.monotonic() - t0 > 30:
            sys.exit("flip %d: no changed answer within 30 s" % n)
        time.sleep(poll)
    latencies.append((time.monotonic() - t0) * 1000)

latencies.sort()
p = lambda q: latencies[min(len(latencies) - 1, max(0, int(round(q * len(latencies))) - 1))]
print("%d flips, reload_interval %s, hold_down %s, polled every %d ms"
      % (flips, os.environ.get("RELOAD", "1s"), os.environ.get("HOLD_DOWN", "0s"), poll * 1000))
print("file renamed -> changed answer (ms): median %.0f  p99 %.0f  max %.0f  (target: p99 <= 1000)"
      % (p(0.5), p(0.99), latencies[-1]))
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
