package io.unitas.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.unitas.core.Region;
import io.unitas.core.rules.Unit;
import io.unitas.data.remote.HomeReadClient;
import io.unitas.data.store.StoreResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The other regions' home-read servers ({@code unitas.readiness.home-reads.endpoints}), reached through one
 * {@link HomeReadClient} shared by the reading side ({@link UnitasReadiness}) and idempotency claims, closed with the
 * application. Without endpoints there is no client, and nothing is read or claimed over the network.
 *
 * <p>At start each peer is asked once, off the start's thread, so that its connection (TCP, TLS, HTTP/2) and the
 * client's classes are ready before the first request needs them, within the one home-read timeout. A peer that does
 * not answer costs one log line, never the start: its first reads connect.
 */
final class HomeReadPeers implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HomeReadPeers.class);
    /** The key the warm-up asks the record of: none has it, so the home answers "not found" from one index look-up. */
    static final String WARM_UP_KEY = "unitas-warm-up";
    /** How many times a peer is asked at start before the warm-up gives up on it. */
    static final int WARM_UP_ATTEMPTS = 5;

    private final HomeReadClient client;
    private final CompletableFuture<Void> warmedUp;

    HomeReadPeers(HomeReadClient client) {
        this.client = client;
        this.warmedUp = CompletableFuture.completedFuture(null);
    }

    private HomeReadPeers(HomeReadClient client, CompletableFuture<Void> warmedUp) {
        this.client = client;
        this.warmedUp = warmedUp;
    }

    /**
     * The peers of {@code endpoints} (region id to URL) through {@code client}, each asked once now for the record of
     * {@link #WARM_UP_KEY} in a unit it is home to by {@code state}'s rules (an idempotency call: the one a home-read
     * server answers for any unit it owns), up to {@link #WARM_UP_ATTEMPTS} times with longer pauses between them, on
     * a thread of its own.
     */
    static HomeReadPeers warm(HomeReadClient client, Map<String, String> endpoints, UnitasRoutingState state,
                              java.time.Duration timeout, String timeoutText) {
        if (client == null) {
            return new HomeReadPeers(null);
        }
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        List<Unit> units = state.current().rules().units();
        endpoints.forEach((region, url) -> {
            String unit = units.stream().filter(u -> u.home().id().equals(region)).map(Unit::id).findFirst()
                               .orElse(WARM_UP_KEY);
            CompletableFuture<Void> call = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    StoreResult<?> r = null;
                    // The first call of the JVM also loads the client's classes and may open the connection after
                    // its deadline; the connection then serves the next attempt.
                    for (int attempt = 1; ; attempt++) {
                        r = client.idempotency(Region.of(region), unit).idempotencyRecord(WARM_UP_KEY);
                        if (r.status() != StoreResult.Status.UNAVAILABLE || attempt == WARM_UP_ATTEMPTS) {
                            break;
                        }
                        Thread.sleep(timeout.toMillis() * attempt); // a start busy with everything else eases off
                    }
                    if (r.status() == StoreResult.Status.UNAVAILABLE) {
                        log.warn("unitas: warming up the home-read server of {} at start, {} attempts: {} ({});"
                                 + " starting anyway, its first reads connect again", region, WARM_UP_ATTEMPTS,
                                 r.detail(), timeoutText);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    log.warn("unitas: warming up the home-read server of {} at start ({}): {} ({}); starting anyway,"
                             + " its first reads connect again", region, url, e.toString(), timeoutText);
                } finally {
                    call.complete(null);
                }
            }, "unitas-home-read-warm-up-" + region);
            t.setDaemon(true);
            t.start();
            calls.add(call);
        });
        return new HomeReadPeers(client, CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)));
    }

    /** The client, or {@code null} when no peer is configured. */
    HomeReadClient client() {
        return client;
    }

    /** Completes when every peer has answered the warm-up, or failed to. */
    CompletableFuture<Void> warmedUp() {
        return warmedUp;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
    }
}
