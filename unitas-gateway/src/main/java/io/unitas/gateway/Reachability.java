package io.unitas.gateway;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.netty.channel.ConnectTimeoutException;
import io.unitas.core.Region;

/**
 * Whether this gateway can connect to each region's upstreams: a region is unreachable from here when every one of
 * its endpoints that was tried within the window had its last connection refused or timed out (not an HTTP error:
 * nothing answered at the address), and at least one was tried; the next connection made to any of them clears it.
 * What the gateway reports to the control plane as evidence that a silent region is down (Envoy's outlier
 * detection by consecutive connect failures, per region rather than per host).
 */
final class Reachability {

    /** An endpoint's last connection: none yet, made, or refused (or timed out). */
    static final int UNTRIED = 0;
    static final int CONNECTED = 1;
    static final int REFUSED = 2;
    /** How often a succeeding endpoint records its success again. */
    static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Connections older than this say nothing of a region now. */
    static final Duration WINDOW = Duration.ofSeconds(2);

    private final Map<Region, List<Upstreams.Endpoint>> endpoints;
    private final LongSupplier ticker;
    private final long windowNanos;

    Reachability(Map<Region, List<Upstreams.Endpoint>> endpoints, LongSupplier ticker, Duration window) {
        this.endpoints = Map.copyOf(endpoints);
        this.ticker = ticker;
        this.windowNanos = window.toNanos();
    }

    /** Whether {@code cause}, the failure of a connection being made, says that nothing answered at the address. */
    static boolean nothingAnswered(Throwable cause) {
        return cause instanceof ConnectException || cause instanceof ConnectTimeoutException
               || cause instanceof NoRouteToHostException;
    }

    /** Every region with upstreams, in the configuration's order. */
    List<Region> regions() {
        return List.copyOf(endpoints.keySet());
    }

    /** Whether {@code region} is unreachable from here now; false for a region without upstreams. */
    boolean unreachable(Region region) {
        List<Upstreams.Endpoint> eps = endpoints.get(region);
        return eps != null && unreachable(eps, ticker.getAsLong(), windowNanos);
    }

    /** The regions unreachable from here now. */
    List<Region> unreachable() {
        long now = ticker.getAsLong();
        List<Region> out = new ArrayList<>();
        endpoints.forEach((region, eps) -> {
            if (unreachable(eps, now, windowNanos)) {
                out.add(region);
            }
        });
        return out;
    }

    /**
     * The rule: among {@code endpoints} tried within {@code windowNanos} of {@code now}, none connected and at least
     * one refused.
     */
    static boolean unreachable(List<Upstreams.Endpoint> endpoints, long now, long windowNanos) {
        boolean refused = false;
        for (Upstreams.Endpoint e : endpoints) {
            int last = e.lastConnect();
            if (last == UNTRIED || now - e.lastConnectAt() > windowNanos) {
                continue;
            }
            if (last == CONNECTED) {
                return false;
            }
            refused = true;
        }
        return refused;
    }
}
