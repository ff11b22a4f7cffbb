package io.unitas.control;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.unitas.core.fence.TokenBucket;

/**
 * Slows down whoever guesses bearer tokens: each client (an IPv4 address, an IPv6 /64, which one host commonly
 * holds whole) may present a wrong token {@code burst} times, then one more per {@code 1 / perSecond} seconds; past
 * that its requests with a token are refused before the token is looked at, so a right guess is refused too. A
 * right token costs nothing. Without it a single client tried 1,128 tokens a second.
 */
final class GuessThrottle {

    /** Clients remembered at most; past it the oldest memory is dropped whole (a flood of addresses forgets). */
    private static final int MAX_NETWORKS = 10_000;

    private final double perSecond;
    private final int burst;
    private final LongSupplier ticker;
    private final ConcurrentHashMap<Network, TokenBucket> failures = new ConcurrentHashMap<>();

    GuessThrottle(double perSecond, int burst, LongSupplier nanoTicker) {
        this.perSecond = perSecond;
        this.burst = burst;
        this.ticker = nanoTicker;
    }

    /**
     * Records a wrong token from {@code client}; returns 0 while it may still guess, otherwise the nanoseconds until
     * it may again.
     */
    long failed(InetAddress client) {
        if (failures.size() >= MAX_NETWORKS) {
            failures.clear();
        }
        return failures.computeIfAbsent(Network.of(client), n -> TokenBucket.of(perSecond, burst, ticker)).tryTake();
    }

    /** Whether {@code client} has guessed too often to have a token looked at now. */
    boolean blocked(InetAddress client) {
        TokenBucket bucket = failures.get(Network.of(client));
        return bucket != null && bucket.waitNanos() > 0;
    }

    /** A client's network: the prefix of its address, and the address's length in bytes (4 or 16). */
    private record Network(long prefix, int length) {
        static Network of(InetAddress address) {
            byte[] b = address.getAddress();
            int keep = b.length == 4 ? 4 : 8; // an IPv4 address, an IPv6 /64
            long prefix = 0;
            for (int i = 0; i < keep; i++) {
                prefix = prefix << 8 | (b[i] & 0xff);
            }
            return new Network(prefix, b.length);
        }
    }
}
