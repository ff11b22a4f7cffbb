package io.unitas.playground;

import io.unitas.core.Region;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A drill's traffic to the example service pair: one client placing orders for users of every region, each entering
 * at another region's gateway than its home's (a cn user at eu's), so every order crosses regions before the order
 * service calls the inventory service. What the services served is counted by the services themselves
 * ({@link WrongRegionCounter}); here only the requests are sent.
 */
final class ExampleLoad {

    private static final Duration PAUSE = Duration.ofMillis(100);

    private final Playground p;
    private final BooleanSupplier stop;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                                               .connectTimeout(Duration.ofSeconds(2)).build();
    private final AtomicLong sent = new AtomicLong();
    private final Thread thread;

    private ExampleLoad(Playground p, BooleanSupplier stop) {
        this.p = p;
        this.stop = stop;
        this.thread = new Thread(this::run, "unitas-drill-example");
        thread.setDaemon(true);
    }

    /** Starts sending until {@code stop} turns true. */
    static ExampleLoad start(Playground p, BooleanSupplier stop) {
        ExampleLoad load = new ExampleLoad(p, stop);
        load.thread.start();
        return load;
    }

    /** Waits for the last request to finish (after {@code stop} turned true). */
    void await() {
        try {
            thread.join(Duration.ofSeconds(20).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The orders sent. */
    long sent() {
        return sent.get();
    }

    private void run() {
        List<Region> regions = p.regions();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.getAsBoolean()) {
            int home = random.nextInt(regions.size());
            String user = p.userId(regions.get(home), random.nextInt(1000));
            for (int entry = home + 1; entry < home + 1 + regions.size() && !stop.getAsBoolean(); entry++) {
                if (order(p.gateway(regions.get(entry % regions.size())), user)) {
                    break; // answered (whatever the status): a region that does not answer is skipped
                }
            }
            try {
                Thread.sleep(PAUSE.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Whether the gateway answered at all. */
    private boolean order(URI gateway, String user) {
        HttpRequest req = HttpRequest.newBuilder(gateway.resolve(ExampleProxy.PREFIX + "/orders"))
                                     .timeout(Duration.ofSeconds(10)).header("x-user-id", user)
                                     .header("content-type", "application/json")
                                     .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"book\",\"quantity\":1}"))
                                     .build();
        sent.incrementAndGet();
        try {
            http.send(req, HttpResponse.BodyHandlers.discarding());
            return true;
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}
