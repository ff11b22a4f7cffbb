package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.playground.replication.Replicator;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.StoreDirectory;
import io.unitas.playground.store.StoreMode;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The demo shop over HTTP with cn, eu and us stores and replication held back (as during the seed's failover): a
 * cn user's data is only in cn, and requests are sent to eu. Shops and stores are shared; each test has its own
 * user and puts the stores back to read-write.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShopTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private final Layout layout = new Layout(List.of(CN, EU, US), 20_000);
    private final ShopClient client = new ShopClient(Duration.ofSeconds(5));
    private final AtomicLong users = new AtomicLong(7);
    private String alice;

    private RegionalStore cn;
    private RegionalStore eu;
    private RegionalStore us;
    private Replicator replicator;
    private Shop cnShop;
    private Shop euShop;
    private Shop cnNaive;
    private Shop euNaive;

    @BeforeAll
    void stores() {
        cn = RegionalStore.embedded(CN, Clock.systemUTC());
        eu = RegionalStore.embedded(EU, Clock.systemUTC());
        us = RegionalStore.embedded(US, Clock.systemUTC());
        replicator = Replicator.builder().stores(cn, eu, us).build();  // rounds only when the test asks
        StoreDirectory stores = StoreDirectory.of(cn, eu, us);
        cnShop = shop(CN, stores, ShopMode.UNITAS);
        euShop = shop(EU, stores, ShopMode.UNITAS);
        cnNaive = shop(CN, stores, ShopMode.NAIVE);
        euNaive = shop(EU, stores, ShopMode.NAIVE);
    }

    private Shop shop(Region region, StoreDirectory stores, ShopMode mode) {
        return Shop.builder().region(region).stores(stores).rules(layout.rules()).mode(mode)
                   .instance(region.id() + "-" + mode).start();
    }

    @BeforeEach
    void newUser() {
        alice = layout.userId(CN, users.getAndIncrement());
    }

    @AfterEach
    void readWrite() {
        cn.mode(StoreMode.READ_WRITE);
    }

    @AfterAll
    void close() {
        for (AutoCloseable c : new AutoCloseable[] {cnShop, euShop, cnNaive, euNaive, replicator, cn, eu, us}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    private URI at(Shop shop) {
        return URI.create("http://127.0.0.1:" + shop.port());
    }

    private String loginAt(Shop shop, String user) {
        ShopClient.Reply login = client.login(at(shop), user);
        assertThat(login.status()).as(login.body().toString()).isEqualTo(200);
        return login.body().path("token").asText();
    }

    /**
     * A region that dies stops answering at once: a closed shop answers no request, also none on a connection a
     * client kept open (it drained them for a second, which kept a "dead" region serving its users that long).
     */
    @Test
    void aClosingShop_answersNothing_onceItStopsTakingConnections() throws Exception {
        StoreDirectory stores = StoreDirectory.of(cn, eu, us);
        Shop shop = shop(CN, stores, ShopMode.NAIVE);
        int port = shop.port(); // a stopping server no longer says its port
        URI base = URI.create("http://127.0.0.1:" + port);
        assertThat(client.register(base, alice).ok()).isTrue(); // the client keeps this connection
        Thread closing = new Thread(shop::close);
        closing.start();
        while (accepts(port)) {
            Thread.onSpinWait();
        }
        ShopClient.Reply late = client.login(base, alice);
        closing.join();
        assertThat(late.ok()).as("answered " + late.status() + " after the shop stopped taking connections").isFalse();
    }

    private static boolean accepts(int port) {
        try {
            new java.net.Socket("127.0.0.1", port).close();
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void a_user_registered_in_cn_logs_in_at_eu_before_replication_by_reading_cn() {
        assertThat(client.register(at(cnShop), alice).status()).isEqualTo(201);

        ShopClient.Reply login = client.login(at(euShop), alice);

        assertThat(login.status()).isEqualTo(200);
        assertThat(login.body().path("read_from").asText()).isEqualTo("home");
        assertThat(login.servedBy()).isEqualTo("eu");
    }

    @Test
    void naive_shops_read_locally_and_tell_the_same_user_the_account_does_not_exist() {
        assertThat(client.register(at(cnNaive), alice).status()).isEqualTo(201);

        ShopClient.Reply login = client.login(at(euNaive), alice);

        assertThat(login.status()).isEqualTo(404);
        assertThat(login.problem()).isEqualTo("account-not-found");
    }

    @Test
    void with_the_home_unreadable_a_missing_account_is_not_ready_rather_than_not_found() {
        assertThat(client.register(at(cnShop), alice).status()).isEqualTo(201);
        cn.mode(StoreMode.UNAVAILABLE);

        ShopClient.Reply login = client.login(at(euShop), alice);

        assertThat(login.status()).isEqualTo(503);
        assertThat(login.problem()).isEqualTo("data-not-ready");
    }

    @Test
    void a_checkout_retried_in_eu_replays_the_order_cn_made() {
        client.register(at(cnShop), alice);
        String token = loginAt(cnShop, alice);
        ShopClient.Reply first = client.checkout(at(cnShop), alice, token, alice + "-k1", "{\"items\":{\"book\":1}}");
        assertThat(first.status()).isEqualTo(201);

        ShopClient.Reply retry = client.checkout(at(euShop), alice, token, alice + "-k1", "{\"items\":{\"book\":1}}");

        assertThat(retry.status()).isEqualTo(201);
        assertThat(retry.body().path("order").asText()).isEqualTo(first.body().path("order").asText());
    }

    @Test
    void naive_shops_keep_idempotency_records_locally_and_make_a_second_order() {
        client.register(at(cnNaive), alice);
        String cnToken = loginAt(cnNaive, alice);
        ShopClient.Reply first = client.checkout(at(cnNaive), alice, cnToken, alice + "-k1", "{\"items\":{\"book\":1}}");
        replicator.pause(CN, EU);
        replicator.replicateDue();  // the account ships to us only; eu gets nothing
        replicator.resume(CN, EU);
        client.register(at(euNaive), alice);  // so the naive eu shop knows the user at all
        String euToken = loginAt(euNaive, alice);

        ShopClient.Reply retry = client.checkout(at(euNaive), alice, euToken, alice + "-k1", "{\"items\":{\"book\":1}}");

        assertThat(retry.status()).isEqualTo(201);
        assertThat(retry.body().path("order").asText()).isNotEqualTo(first.body().path("order").asText());
    }

    @Test
    void an_account_and_session_made_in_eu_during_a_failover_are_found_at_home_before_replication_brings_them() {
        assertThat(client.register(at(euShop), alice).status()).isEqualTo(201);  // cn's users were sent to eu
        String token = loginAt(euShop, alice);

        ShopClient.Reply login = client.login(at(cnShop), alice);
        ShopClient.Reply cart = client.cart(at(cnShop), alice, token);

        assertThat(login.status()).isEqualTo(200);
        assertThat(cart.status()).isEqualTo(200);
        assertThat(cn.account(alice).status()).isEqualTo(io.unitas.data.store.StoreResult.Status.NOT_FOUND);
    }

    @Test
    void the_same_key_with_another_payload_is_422() {
        client.register(at(cnShop), alice);
        String token = loginAt(cnShop, alice);
        client.checkout(at(cnShop), alice, token, alice + "-k1", "{\"items\":{\"book\":1}}");

        ShopClient.Reply other = client.checkout(at(euShop), alice, token, alice + "-k1", "{\"items\":{\"cup\":9}}");

        assertThat(other.status()).isEqualTo(422);
        assertThat(other.problem()).isEqualTo("idempotency-key-reused");
    }

    @Test
    void a_new_key_waits_while_the_home_is_read_only_and_nothing_is_ordered() {
        client.register(at(cnShop), alice);
        String token = loginAt(cnShop, alice);
        cn.mode(StoreMode.READ_ONLY);

        ShopClient.Reply checkout = client.checkout(at(euShop), alice, token, alice + "-k2", "{}");

        assertThat(checkout.status()).isEqualTo(503);
        assertThat(checkout.problem()).isEqualTo("data-not-ready");
        assertThat(eu.orders(alice).value()).isEmpty();
    }

    @Test
    void cart_items_added_in_cn_and_in_eu_are_all_in_the_cart() {
        client.register(at(cnShop), alice);
        String token = loginAt(cnShop, alice);
        assertThat(client.addToCart(at(cnShop), alice, token, "book", 1).status()).isEqualTo(200);
        assertThat(client.addToCart(at(euShop), alice, token, "cup", 2).status()).isEqualTo(200);

        ShopClient.Reply cart = client.cart(at(euShop), alice, token);

        assertThat(cart.body().path("items").path("book").asInt()).isEqualTo(1);
        assertThat(cart.body().path("items").path("cup").asInt()).isEqualTo(2);
    }

    @Test
    void a_request_without_a_session_is_401_and_without_a_user_is_400() {
        client.register(at(cnShop), alice);

        assertThat(client.cart(at(cnShop), alice, "nope").status()).isEqualTo(401);
        assertThat(client.register(at(cnShop), "").status()).isEqualTo(400);
    }
}
