package io.unitas.spring;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.unitas.core.Region;
import io.unitas.data.remote.HomeReadClient;

/**
 * The other regions' home-read servers ({@code unitas.readiness.home-reads.endpoints}), reached through one
 * {@link HomeReadClient} shared by the reading side ({@link UnitasReadiness}) and idempotency claims, closed with the
 * application. Without endpoints there is no client, and nothing is read or claimed over the network.
 *
 * <p>Its connections are opened at start, before the application serves: connecting (TCP, TLS, HTTP/2) would
 * otherwise fall within the first reads' timeout and fail them. A peer that cannot be reached then is logged, and
 * the start goes on: its first reads connect.
 */
final class HomeReadPeers implements AutoCloseable, SmartInitializingSingleton {

    /** The longest the start waits for the connections. */
    static final Duration WARM_UP_WAIT = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(HomeReadPeers.class);

    private final HomeReadClient client;

    HomeReadPeers(HomeReadClient client) {
        this.client = client;
    }

    /** The client, or {@code null} when no peer is configured. */
    HomeReadClient client() {
        return client;
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (client == null) {
            return;
        }
        long started = System.nanoTime();
        try {
            Map<Region, String> failed = client.connect().toCompletableFuture()
                                               .get(WARM_UP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            failed.forEach((peer, why) -> log.warn("home-read peer {} could not be reached at start ({}): its first"
                    + " reads connect then, within {}", peer, why, HomeReadTimeout.PROPERTY));
            log.info("home-read peers connected in {} ms{}", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                     failed.isEmpty() ? "" : ", except " + failed.keySet());
        } catch (TimeoutException e) {
            log.warn("home-read peers not all connected after {} at start: their first reads connect then, within {}",
                     WARM_UP_WAIT, HomeReadTimeout.PROPERTY);
        } catch (ExecutionException e) {
            log.warn("home-read peers: connecting at start failed: {}", String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
    }
}
