package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.testkit.Await;
import io.unitas.testkit.Ports;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The playground's regions read from each other over the network: with replication held back, eu serves a cn user
 * by reading cn's home-read server; with cn down, that read answers a retryable data-not-ready, never "not found".
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlaygroundHomeReadTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private final ShopClient client = new ShopClient(Duration.ofSeconds(10));
    private Playground playground;

    /** Where the regions' home-read servers count what they serve (they register on the global registry). */
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @BeforeAll
    void start() {
        Metrics.globalRegistry.add(meters);
        // Nothing replicates within the test: whatever eu knows of cn's users it read from cn.
        playground = Playground.builder().portsFrom(Ports.range(50)).replicationDelay(Duration.ofHours(1)).start();
    }

    @AfterAll
    void stop() {
        playground.close();
        Metrics.globalRegistry.remove(meters);
    }

    @Test
    void a_checkout_in_eu_for_a_cn_user_writes_its_idempotency_record_in_cn_through_cns_server() {
        String user = playground.userId(CN, 23);
        assertThat(client.register(playground.shops(CN).get(0), user).status()).isEqualTo(201);
        ShopClient.Reply login = loginAsAClientRetries(user);
        assertThat(login.status()).as(login.body().toString()).isEqualTo(200);
        double claimsAtCn = served("claim", "ok");

        // A client retries a retryable answer. A key whose claim timed out in eu may be held at cn, unknown to eu
        // (a loaded machine; docs/data.md, "Why a claim goes once"), so each attempt here brings a key of its own.
        AtomicReference<ShopClient.Reply> checkout = new AtomicReference<>();
        AtomicReference<String> key = new AtomicReference<>();
        AtomicInteger attempts = new AtomicInteger();
        Await.until("a checkout at eu answered other than retryably", Duration.ofSeconds(60), () -> {
            key.set("k-eu-" + attempts.incrementAndGet());
            checkout.set(client.checkout(playground.shops(EU).get(0), user, login.body().path("token").asText(),
                                         key.get(), "{\"items\":{\"book\":1}}"));
            return !List.of("data-not-ready", "idempotency-key-in-flight").contains(checkout.get().problem());
        });

        assertThat(checkout.get().status()).as(checkout.get().body().toString()).isEqualTo(201);
        assertThat(checkout.get().servedBy()).isEqualTo(EU.id());
        assertThat(playground.store(CN).idempotencyRecord(key.get()).value().response().body())
                .contains(checkout.get().body().path("order").asText());
        assertThat(playground.store(EU).idempotencyRecord(key.get()).isOk()).isFalse();
        assertThat(served("claim", "ok") - claimsAtCn).as("claims cn's server granted").isGreaterThanOrEqualTo(1);
    }

    private double served(String operation, String outcome) {
        var c = meters.find("unitas.data.home.idempotency.served").tag("region", "cn").tag("operation", operation)
                      .tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void eu_reads_a_cn_account_it_has_not_received_from_cn_over_the_network_and_answers_not_ready_while_cn_is_down() {
        String user = playground.userId(CN, 21);
        assertThat(client.register(playground.shops(CN).get(0), user).status()).isEqualTo(201);
        assertThat(playground.store(EU).account(user).isOk()).isFalse();

        ShopClient.Reply fromHome = loginAsAClientRetries(user);

        assertThat(fromHome.status()).as(fromHome.body().toString()).isEqualTo(200);
        assertThat(fromHome.body().path("read_from").asText()).isEqualTo("home");

        playground.stopRegion(CN);
        try {
            ShopClient.Reply homeDown = client.login(playground.shops(EU).get(0), user);

            assertThat(homeDown.status()).isEqualTo(503);
            assertThat(homeDown.problem()).isEqualTo("data-not-ready");
            assertThat(homeDown.body().path("detail").asText()).contains("cn");
        } finally {
            playground.startRegion(CN);
        }
    }

    /**
     * Logs in at eu, again while the answer is a retryable data-not-ready (as a client honouring Retry-After does):
     * on a loaded machine the first read may miss its deadline while the connection to cn opens.
     */
    private ShopClient.Reply loginAsAClientRetries(String user) {
        AtomicReference<ShopClient.Reply> last = new AtomicReference<>();
        Await.until("a login at eu answered other than data-not-ready", Duration.ofSeconds(30), () -> {
            last.set(client.login(playground.shops(EU).get(0), user));
            return !"data-not-ready".equals(last.get().problem());
        });
        return last.get();
    }

    @Test
    void a_user_no_region_has_registered_is_not_found_as_the_home_says_so() {
        ShopClient.Reply login = loginAsAClientRetries(playground.userId(CN, 22));

        assertThat(login.status()).as(login.body().toString()).isEqualTo(404);
        assertThat(login.problem()).isEqualTo("account-not-found");
    }
}
