package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.data.store.StoreMode;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The whole playground in this JVM: control plane, three regions of gateways, health agents, shops and stores. */
class PlaygroundTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static Playground playground;
    private final ShopClient client = new ShopClient(Duration.ofSeconds(5));

    @BeforeAll
    static void start() {
        playground = Playground.builder().portsFrom(TestPorts.next()).start();
        playground.awaitReady(Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        playground.close();
    }

    @Test
    void a_user_registered_through_one_gateway_is_served_at_home_through_any_gateway() {
        String user = playground.userId(CN, 11);
        ShopClient.Reply register = client.register(playground.gateway(EU), user);
        assertThat(register.status()).isEqualTo(201);
        assertThat(register.servedBy()).isEqualTo("cn");

        ShopClient.Reply login = client.login(playground.gateway(CN), user);

        assertThat(login.status()).isEqualTo(200);
        assertThat(login.servedBy()).isEqualTo("cn");
    }

    @Test
    void when_cn_turns_read_only_its_users_are_served_by_eu_and_back_in_cn_after_it_recovers() {
        String user = playground.userId(CN, 12);
        assertThat(client.register(playground.gateway(CN), user).status()).isEqualTo(201);
        playground.store(CN).mode(StoreMode.READ_ONLY);
        try {
            awaitServedBy(user, "eu");
            ShopClient.Reply login = client.login(playground.gateway(CN), user);
            assertThat(login.status()).as(login.body().toString()).isEqualTo(200);
        } finally {
            playground.store(CN).mode(StoreMode.READ_WRITE);
        }
        awaitServedBy(user, "cn");
    }

    private void awaitServedBy(String user, String region) {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        String last = "";
        while (System.nanoTime() < end) {
            ShopClient.Reply r = client.login(playground.gateway(CN), user);
            if (r.ok() && r.servedBy().equals(region)) {
                return;
            }
            last = r.status() + " " + r.problem() + " from " + r.servedBy();
            sleep(50);
        }
        throw new AssertionError("not served by " + region + " within 20 s; last: " + last);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
