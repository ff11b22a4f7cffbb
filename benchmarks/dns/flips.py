"""Shared by health-change.sh and control-change.sh: a client of cn (EDNS Client Subnet 10.1.0.0/16) asking unitas
dns for www.shop.example, and the timing of health flips until its answer changes."""
import random, socket, struct, sys, time


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


def asker(port):
    """A function that asks once and returns the first address answered, or None (no answer within 1 s)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(1)

    def ask():
        s.sendto(query(7), ("127.0.0.1", port))
        try:
            return first_address(s.recv(4096))
        except socket.timeout:
            return None
    return ask


def await_answer(ask, accept, failure):
    """Asks until accept(answer) holds, for up to two minutes; else exits with failure."""
    deadline = time.time() + 120
    while not accept(ask()):
        if time.time() > deadline:
            sys.exit(failure)
        time.sleep(0.2)


def time_flips(ask, flips, poll, flip, prepare=lambda down: None):
    """Flips cn down, up, down... (prepare(down) untimed, then flip(down) timed) at random moments; returns each
    flip's time in ms until cn's client is answered from the new region (eu's 10.0.2.1 or cn's 10.0.1.1), sorted."""
    latencies = []
    rng = random.Random(1)
    for n in range(flips):
        time.sleep(rng.uniform(0, 1.2))  # flips fall anywhere in the reload interval or the plane's tick
        down = n % 2 == 0
        want = "10.0.2.1" if down else "10.0.1.1"
        prepare(down)
        t0 = time.monotonic()
        flip(down)
        while ask() != want:
            if time.monotonic() - t0 > 30:
                sys.exit("flip %d: no changed answer within 30 s" % n)
            time.sleep(poll)
        latencies.append((time.monotonic() - t0) * 1000)
    latencies.sort()
    return latencies


def summary(latencies, what):
    p = lambda q: latencies[min(len(latencies) - 1, max(0, int(round(q * len(latencies))) - 1))]
    print("%s (ms): median %.0f  p99 %.0f  max %.0f  (target: p99 <= 1000)"
          % (what, p(0.5), p(0.99), latencies[-1]))
