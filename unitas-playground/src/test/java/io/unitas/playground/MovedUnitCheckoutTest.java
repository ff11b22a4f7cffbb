package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.core.Region;
import io.unitas.data.store.StoreResult;
import io.unitas.playground.store.Order;
import io.unitas.playground.store.StoreMode;
import io.unitas.testkit.Await;
import io.unitas.testkit.Ports;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * cn's database turns read-only (the seed's incident) and its unit is switched over to eu: the shops follow the
 * control plane's live unit-to-region map, so a cn user's checkout, and its Idempotency-Key record, are written in
 * eu and succeed; the same key sent again returns the same order, and only one order exists for it anywhere.
 */
class MovedUnitCheckoutTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final String PAYLOAD = "{\"items\":{\"book\":1}}";

    private final ShopClient client = new ShopClient(Duration.ofSeconds(5));

    @Test
    void aUnitMovedToEu_itsUsersCheckoutSucceedsInEu_andARetryReturnsTheSameOrder() {
        try (Playground p = Playground.builder().portsFrom(Ports.range(50)).start()) {
            p.awaitReady(Duration.ofSeconds(90));
            String user = p.userId(CN, 42);
            assertThat(client.register(p.gateway(CN), user).status()).isEqualTo(201);

            p.store(CN).mode(StoreMode.READ_ONLY);
            RawClient admin = RawClient.of(p.control(), p.adminToken());
            ControlResponse started = admin.post("/api/v1/switchovers", "{\"units\":[\"u-cn\"],\"target\":\"eu\","
                                                 + "\"timeout_ms\":60000,\"force\":true,\"reason\":\"test\"}");
            assertThat(started.status()).as(started.body()).isEqualTo(202);
            Await.until("the switchover ends", Duration.ofSeconds(90), () -> switchover(admin).path("phase").asText()
                    .matches("completed|rolled_back|aborted"));
            assertThat(switchover(admin).path("phase").asText()).as(switchover(admin).toString())
                    .isEqualTo("completed");

            // The gateways and the shops follow the same state, each at its own pace: the client retries with its
            // key until the new home answers, as any client of an Idempotency-Key endpoint would.
            AtomicReference<ShopClient.Reply> first = new AtomicReference<>();
            Await.until("a checkout of a cn user succeeds in eu", Duration.ofSeconds(60), () -> {
                ShopClient.Reply login = client.login(p.gateway(CN), user);
                if (!login.ok()) {
                    return false;
                }
                ShopClient.Reply r = client.checkout(p.gateway(CN), user, login.body().path("token").asText(),
                                                     "k-moved", PAYLOAD);
                first.set(r);
                return r.ok();
            });
            assertThat(first.get().servedBy()).isEqualTo(EU.id());
            String order = first.get().body().path("order").asText();
            assertThat(order).isNotEmpty();

            ShopClient.Reply login = client.login(p.gateway(EU), user);
            ShopClient.Reply again = client.checkout(p.gateway(EU), user, login.body().path("token").asText(),
                                                     "k-moved", PAYLOAD);
            assertThat(again.status()).as(again.problem()).isEqualTo(201);
            assertThat(again.body().path("order").asText()).isEqualTo(order);

            p.store(CN).mode(StoreMode.READ_WRITE);
            Await.until("replication settles", Duration.ofSeconds(60),
                        () -> p.replicator().caughtUp());
            for (Region region : p.regions()) {
                StoreResult<List<Order>> orders = p.store(region).orders(user);
                assertThat(orders.isOk()).as(orders.detail()).isTrue();
                assertThat(orders.value()).as(() -> "orders of k-moved in " + region + "; every store's: "
                                                     + p.regions().stream().map(r -> r + "=" + p.store(r).orders(user))
                                                        .toList() + "; links: " + p.replicator().links())
                        .filteredOn(o -> o.idempotencyKey().equals("k-moved"))
                        .extracting(Order::orderId).containsExactly(order);
            }
        }
    }

    private static JsonNode switchover(RawClient admin) {
        return admin.get("/api/v1/state").json().path("switchover");
    }
}
