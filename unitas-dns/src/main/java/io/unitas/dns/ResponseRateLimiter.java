package io.unitas.dns;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * Response-rate limiting in BIND's manner (RRL): UDP answers are metered per client network (the source address cut
 * to {@code ipv4_prefix} or {@code ipv6_prefix} bits) and per answer (the name and type asked; every NXDOMAIN of the
 * zone as one answer; every error as one), {@code responses_per_second} for each such pair with a second's worth at
 * once. Past it an answer is dropped, except every {@code slip}-th, which is sent truncated (TC, no records) so that
 * a real client behind a spoofed flood still gets through by asking again over TCP. A forged source therefore gets
 * at most that rate of answers per answer, whatever the flood.
 *
 * <p>Pure: the buckets are kept on an injected ticker, with no I/O. They live in a table of fixed size (two slots a
 * key may take, the older one given up to a new key), so spoofed sources cannot grow memory; a key pushed out
 * starts again with a full bucket. Each bucket is one theoretical arrival time (GCRA, as
 * {@link io.unitas.core.fence.TokenBucket}), one compare-and-set per answer, no allocation.
 */
final class ResponseRateLimiter {

    /** What to do with one answer. */
    enum Verdict {
        /** Send it. */
        SEND,
        /** Send nothing. */
        DROP,
        /** Send it truncated: header and question, TC set, no records. */
        SLIP
    }

    private final LongSupplier ticker;
    private final long intervalNanos;
    private final long toleranceNanos;
    private final int slip;
    private final long v4Mask;
    private final long v6Mask;
    private final int mask;
    private final AtomicLongArray keys;
    private final AtomicLongArray arrivals;
    private final AtomicIntegerArray limited;

    ResponseRateLimiter(DnsConfig.RateLimit limit, LongSupplier ticker) {
        this.ticker = ticker;
        this.intervalNanos = Math.max(1, 1_000_000_000L / limit.responsesPerSecond());
        this.toleranceNanos = intervalNanos * limit.responsesPerSecond();
        this.slip = limit.slip();
        this.v4Mask = limit.ipv4Prefix() == 0 ? 0 : -1L << (64 - limit.ipv4Prefix());
        this.v6Mask = limit.ipv6Prefix() == 0 ? 0 : -1L << (64 - limit.ipv6Prefix());
        int slots = Integer.highestOneBit(Math.max(2, limit.tableSize() - 1)) << 1;
        this.mask = slots - 1;
        this.keys = new AtomicLongArray(slots);
        this.arrivals = new AtomicLongArray(slots);
        this.limited = new AtomicIntegerArray(slots);
    }

    /**
     * The verdict on one more answer to {@code client} (the packet's source address) that {@code answer} identifies
     * (see {@link #answerKey}).
     */
    Verdict check(InetAddress client, int answer) {
        long now = ticker.getAsLong();
        long key = key(network(client), answer);
        int slot = slot(key, now);
        while (true) {
            long seen = arrivals.get(slot);
            long next = Math.max(seen, now - toleranceNanos) + intervalNanos;
            if (next - now > 0) {
                break;
            }
            if (arrivals.compareAndSet(slot, seen, next)) {
                return Verdict.SEND;
            }
        }
        return slip > 0 && limited.incrementAndGet(slot) % slip == 0 ? Verdict.SLIP : Verdict.DROP;
    }

    /**
     * What identifies an answer, as BIND's RRL keys it: the name and type asked for an answer or NODATA, the zone
     * for NXDOMAIN (so random names under it share one bucket), one key for all errors.
     */
    static int answerKey(int rcode, String name, int type) {
        return switch (rcode) {
            case Responder.NOERROR -> name.hashCode() * 31 + type;
            case Responder.NXDOMAIN -> 0x4e58_0000;
            default -> 0x4552_0000;
        };
    }

    /** The client's network as the top bits of a long: IPv4's prefix, or IPv6's (a prefix of at most 64 bits). */
    private long network(InetAddress client) {
        if (client instanceof Inet4Address) {
            return ((long) client.hashCode() << 32) & v4Mask; // an Inet4Address's hash is its address
        }
        byte[] a = client.getAddress();
        long top = 0;
        for (int i = 0; i < 8; i++) {
            top = top << 8 | (a[i] & 0xff);
        }
        return (top & v6Mask) ^ 0x6; // IPv6 networks apart from IPv4's, whose low bits are always 0
    }

    /** Mixes a network and an answer into a key that is never 0 (0 marks an empty slot). */
    private static long key(long network, int answer) {
        long h = network ^ (answer * 0x9E37_79B9_7F4A_7C15L);
        h = (h ^ (h >>> 33)) * 0xff51_afd7_ed55_8ccdL;
        h = (h ^ (h >>> 33)) * 0xc4ce_b9fe_1a85_ec53L;
        h ^= h >>> 33;
        return h == 0 ? 1 : h;
    }

    /**
     * The slot of {@code key}: one of two, the one holding it, else the one whose bucket is fuller (the older
     * arrival), taken over with a full bucket. Two answers racing for a new key may both take it; one bucket wins.
     */
    private int slot(long key, long now) {
        int a = (int) key & mask;
        int b = a ^ 1;
        if (keys.get(a) == key) {
            return a;
        }
        if (keys.get(b) == key) {
            return b;
        }
        int victim = keys.get(a) == 0 ? a : keys.get(b) == 0 ? b : arrivals.get(a) - arrivals.get(b) <= 0 ? a : b;
        keys.set(victim, key);
        arrivals.set(victim, now - toleranceNanos);
        limited.set(victim, 0);
        return victim;
    }
}
