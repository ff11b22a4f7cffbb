package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.core.Region;
import io.unitas.data.store.StoreResult;
import io.unitas.playground.store.Order;
import io.unitas.testkit.Await;
import io.unitas.testkit.Ports;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A switchover of cn's unit to eu in the whole in-process playground, under checkouts of cn's users: it waits on the
 * lag of cn's unit as cn's health agent reports it (the embedded replicator's positions), so it completes; every
 * acknowledged order is in every region once replication settles, and no Idempotency-Key produced two orders.
 */
class PlaygroundSwitchoverTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final int WRITERS = 3;

    private final ShopClient client = new ShopClient(Duration.ofSeconds(5));
    /** Acknowledged checkouts: Idempotency-Key to the order id the shop answered with. */
    private final Map<String, String> acknowledged = new ConcurrentHashMap<>();
    private final Map<String, String> userOfKey = new ConcurrentHashMap<>();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger answeredDifferently = new AtomicInteger();
    /** Counted down when the load should end: writers finish their pending key, and a back-off ends at once. */
    private final CountDownLatch stopped = new CountDownLatch(1);

    @Test
    void aSwitchoverUnderWriteLoad_completesOnMeasuredUnitLag_losingNoAcknowledgedWrite_acceptingNoneTwice()
            throws Exception {
        try (Playground p = Playground.builder().portsFrom(Ports.range(50)).start()) {
            p.awaitReady(Duration.ofSeconds(90));
            ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
            for (int i = 0; i < WRITERS; i++) {
                String user = p.userId(CN, 100 + i);
                writers.execute(() -> write(p, user));
            }
            Await.until("checkouts acknowledged before the switchover", Duration.ofSeconds(60),
                        () -> acknowledged.size() >= 10);

            RawClient admin = RawClient.of(p.control(), p.adminToken());
            ControlResponse started = admin.post("/api/v1/switchovers", "{\"units\":[\"u-cn\"],\"target\":\"eu\","
                                                 + "\"timeout_ms\":60000,\"force\":true,\"reason\":\"test\"}");
            assertThat(started.status()).as(started.body()).isEqualTo(202);
            Await.until("the switchover ends", Duration.ofSeconds(90), () -> switchover(admin).path("phase").asText()
                    .matches("completed|rolled_back|aborted"));
            JsonNode done = switchover(admin);
            assertThat(done.path("phase").asText()).as(done.toString()).isEqualTo("completed");
            assertThat(done.path("steps").get(2).path("detail").asText()).startsWith("u-cn caught up in eu");

            int atFlip = acknowledged.size();
            Await.until("checkouts acknowledged in the new home", Duration.ofSeconds(60),
                        () -> acknowledged.size() >= atFlip + 10);
            stopped.countDown();
            writers.shutdown();
            assertThat(writers.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            Await.until("replication settles", Duration.ofSeconds(60),
                        () -> p.replicator().caughtUp());

            for (Region region : p.regions()) {
                Map<String, List<Order>> byKey = new java.util.HashMap<>();
                for (String user : userOfKey.values().stream().distinct().toList()) {
                    StoreResult<List<Order>> orders = p.store(region).orders(user);
                    assertThat(orders.isOk()).as(orders.detail()).isTrue();
                    orders.value().forEach(o -> byKey.computeIfAbsent(o.idempotencyKey(), k -> new ArrayList<>())
                                                     .add(o));
                }
                assertThat(byKey.entrySet().stream().filter(e -> e.getValue().size() > 1).map(Map.Entry::getKey)
                                .collect(Collectors.toList())).as("keys with two orders in " + region).isEmpty();
                acknowledged.forEach((key, order) -> assertThat(byKey.get(key)).as("order of " + key + " in " + region)
                        .isNotNull().extracting(Order::orderId).containsExactly(order));
            }
            assertThat(answeredDifferently).as("a key answered with two order ids").hasValue(0);
            System.out.println(acknowledged.size() + " checkouts acknowledged, " + refused + " refused and retried");
        }
    }

    private static JsonNode switchover(RawClient admin) {
        return admin.get("/api/v1/state").json().path("switchover");
    }

    /** One cn user checking out in a loop through cn's gateway; a refused checkout is retried with its key. */
    private void write(Playground p, String user) {
        String token = null;
        String key = null;
        while (stopped.getCount() > 0 || key != null) {
            if (token == null) {
                client.register(p.gateway(CN), user);
                ShopClient.Reply login = client.login(p.gateway(CN), user);
                token = login.ok() ? login.body().path("token").asText(null) : null;
                if (token == null) {
                    pause();
                    continue;
                }
            }
            if (key == null) {
                key = UUID.randomUUID().toString();
                userOfKey.put(key, user);
            }
            ShopClient.Reply r = client.checkout(p.gateway(CN), user, token, key, "{\"items\":{\"book\":1}}");
            if (r.ok()) {
                String previous = acknowledged.putIfAbsent(key, r.body().path("order").asText());
                if (previous != null && !previous.equals(r.body().path("order").asText())) {
                    answeredDifferently.incrementAndGet();
                }
                key = null;
            } else {
                refused.incrementAndGet();
                if (r.status() == 401) {
                    token = null;
                }
                pause();
            }
        }
    }

    /** A client's back-off before it retries: 50 ms, or less when the load is told to stop. */
    private void pause() {
        try {
            stopped.await(50, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
