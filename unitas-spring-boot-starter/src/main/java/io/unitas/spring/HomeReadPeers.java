package io.unitas.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

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
 * otherwise fall within the first reads' timeout and fail them. The same request asks each peer what it serves, and
 * every {@link UnitasEntity} declared here is compared with the peer's: a codec that differs, or a type the peer does
 * not serve, stops the start with one line each. A peer that cannot be asked then is logged, and the start goes on:
 * its first reads connect, and the comparison is made again each time the health component is asked, until it is
 * made; a mismatch found then turns that component DOWN.
 */
final class HomeReadPeers implements AutoCloseable, SmartInitializingSingleton {

    /** The longest the start waits for the connections. */
    static final Duration WARM_UP_WAIT = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(HomeReadPeers.class);

    private final HomeReadClient client;
    private final String region;
    private final Supplier<List<UnitasEntity<?>>> entities;
    /** Peers not compared yet (by region id; "*": all of them), and why. */
    private final Map<String, String> unchecked = new ConcurrentHashMap<>();
    private final List<String> mismatches = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicBoolean checking = new AtomicBoolean();

    HomeReadPeers(HomeReadClient client) {
        this(client, null, List::of);
    }

    /** {@code entities} is asked once the singletons exist: an entity bean may depend on the reading side. */
    HomeReadPeers(HomeReadClient client, String region, Supplier<List<UnitasEntity<?>>> entities) {
        this.client = client;
        this.region = region;
        this.entities = entities;
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
        Map<Region, HomeReadClient.Declarations> answers;
        try {
            answers = client.declarations().toCompletableFuture().get(WARM_UP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn("home-read peers not all connected after {} at start: their first reads connect then, within {};"
                     + " their declarations are compared later", WARM_UP_WAIT, HomeReadTimeout.PROPERTY);
            unchecked.put("*", "no answer within " + WARM_UP_WAIT + " at start");
            return;
        } catch (ExecutionException e) {
            log.warn("home-read peers: connecting at start failed: {}", String.valueOf(e.getCause()));
            unchecked.put("*", "connecting at start failed: " + e.getCause());
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        List<String> found = compare(answers);
        if (!found.isEmpty()) {
            throw new UnitasConfigurationException(found);
        }
        unchecked.forEach((peer, why) -> log.warn("home-read peer {} could not be asked at start ({}): its first"
                + " reads connect then, within {}; its declarations are compared when it answers", peer, why,
                HomeReadTimeout.PROPERTY));
        log.info("home-read peers connected in {} ms{}", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                 unchecked.isEmpty() ? "" : ", except " + unchecked.keySet());
    }

    /**
     * Compares the peers' answers with the entities declared here: the mismatches found, one line each; a peer that
     * did not answer is kept as not compared, with why.
     */
    private List<String> compare(Map<Region, HomeReadClient.Declarations> answers) {
        List<String> found = new ArrayList<>();
        new TreeMap<>(answers).forEach((peer, declared) -> {
            if (!declared.known()) {
                unchecked.put(peer.id(), declared.unknown());
                return;
            }
            unchecked.remove(peer.id());
            found.addAll(mismatches(region, entities.get(), peer, declared.codecs()));
        });
        return found;
    }

    /**
     * Each entity declared here that {@code peer} serves with another codec id, or does not serve: one line each,
     * naming the entity, the peer and both sides.
     */
    static List<String> mismatches(String here, List<UnitasEntity<?>> declared, Region peer,
                                   Map<String, String> theirs) {
        List<String> lines = new ArrayList<>();
        for (UnitasEntity<?> entity : declared) {
            String their = theirs.get(entity.type());
            if (their == null) {
                lines.add("UnitasEntity '" + entity.type() + "': declared in region " + here + " (codec "
                          + shown(entity.codecId()) + "), not served by region " + peer + " (it serves "
                          + theirs.keySet() + "; expected: the same entity declarations in every region)");
            } else if (!their.equals(entity.codecId())) {
                lines.add("UnitasEntity '" + entity.type() + "': codec " + shown(entity.codecId()) + " in region "
                          + here + ", codec " + shown(their) + " in region " + peer
                          + " (expected: the same codecId in every region)");
            }
        }
        return lines;
    }

    private static String shown(String codecId) {
        return codecId.isEmpty() ? "without codecId" : "'" + codecId + "'";
    }

    /**
     * For the health component: the mismatches found after the start (none: empty), and the peers not compared yet
     * with why. While some are, it asks them again, one request at a time, without waiting for the answer.
     */
    Status status() {
        if (client != null && !unchecked.isEmpty() && checking.compareAndSet(false, true)) {
            client.declarations().whenComplete((answers, error) -> {
                try {
                    if (answers != null) {
                        unchecked.remove("*");
                        List<String> found = compare(answers);
                        found.forEach(line -> log.error("home-read peer declarations differ: {}", line));
                        found.stream().filter(line -> !mismatches.contains(line)).forEach(mismatches::add);
                    }
                } finally {
                    checking.set(false);
                }
            });
        }
        return new Status(List.copyOf(mismatches), new TreeMap<>(unchecked));
    }

    /** What the comparison with the peers found: mismatches (one line each), and peers not compared yet with why. */
    record Status(List<String> mismatches, Map<String, String> notCompared) {}

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
    }
}
