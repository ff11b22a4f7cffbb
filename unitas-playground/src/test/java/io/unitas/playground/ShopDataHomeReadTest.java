package io.unitas.playground;

import static io.unitas.playground.EmbeddedRegions.CN;
import static io.unitas.playground.EmbeddedRegions.EU;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.data.DataProblem;
import io.unitas.data.Home;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyResult;
import io.unitas.data.ReadinessResult;
import io.unitas.data.remote.HomeReadClient;
import io.unitas.data.remote.HomeReadServer;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import io.unitas.playground.store.Account;
import io.unitas.playground.store.OtherRegions;
import io.unitas.playground.store.Session;
import io.unitas.playground.store.SessionRef;
import io.unitas.playground.store.ShopData;
import io.unitas.playground.store.StoreDirectory;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shop's entities read from their home over a real HTTP/2 hop: eu reads cn's account, session and cart through
 * cn's home-read server ({@link ShopData#serve}) as cn stores them, a true absence as "not found", and a stopped
 * home as not ready; a checkout in eu for a cn user keeps its Idempotency-Key record in cn through the same server.
 */
class ShopDataHomeReadTest {

    @RegisterExtension
    final EmbeddedRegions regions = new EmbeddedRegions();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final HomeReadServer cnServes = ShopData.serve(HomeReadServer.builder(), regions.cn, regions.clock)
            .region(CN).owns(unit -> unit.equals("u-cn")).token("secret").meterRegistry(meters).start();
    // No case here waits for the deadline (a stopped server refuses at once): it only has to outlast the first read
    // of a cold JVM on a loaded machine, which took more than 5 s at a load average of 30 on 2 cores.
    private final HomeReadClient euReads = HomeReadClient.builder().endpoint(CN, cnServes.uri()).token("secret")
            .deadline(Duration.ofSeconds(60)).hedgeAfter(Duration.ofSeconds(30)).meterRegistry(meters).build();
    // Every key of this test is at home in cn, in unit u-cn.
    private final ShopData eu = ShopData.of(EU, regions.stores, key -> Home.of(key, "u-cn", CN),
                                            euReads, regions.clock);

    @AfterEach
    void close() {
        euReads.close();
        cnServes.close();
    }

    @Test
    void eu_reads_cns_account_session_and_cart_as_cn_stores_them() {
        Account ann = new Account("ann", "u-cn", CN, "Ann", regions.clock.instant());
        Session session = new Session("t-1", "ann", regions.clock.instant().plus(Duration.ofHours(1)));
        regions.cn.putAccount(ann);
        regions.cn.putSession(session);
        regions.cn.updateCart("ann", (cart, replica) -> cart.add(replica, "book", 2));

        ReadinessResult<Account> account = eu.accounts().read("ann");
        ReadinessResult<Session> readSession = eu.sessions().read(new SessionRef("ann", "t-1"));

        assertThat(account.outcome()).isEqualTo(ReadinessResult.Outcome.HOME);
        assertThat(account.value()).isEqualTo(ann);
        assertThat(readSession.outcome()).isEqualTo(ReadinessResult.Outcome.HOME);
        assertThat(readSession.value()).isEqualTo(session);
        assertThat(eu.carts().read("ann").value().items()).isEqualTo(Map.of("book", 2));
    }

    @Test
    void a_checkout_in_eu_for_a_cn_user_claims_and_completes_its_key_in_cn_over_the_network() {
        // eu's shop can reach no store but its own: cn's records are only reachable through cn's server.
        ShopData euAlone = ShopData.of(EU, StoreDirectory.of(regions.eu), key -> Home.of(key, "u-cn", CN), euReads,
                                       regions.clock);
        String fingerprint = Idempotency.payloadHash("{\"items\":{\"book\":1}}");

        IdempotencyResult first = euAlone.checkouts().execute("k-1", "ann", fingerprint,
                                                              () -> new StoredResponse(201, "{\"order\":\"o-1\"}"));
        IdempotencyResult retry = euAlone.checkouts().execute("k-1", "ann", fingerprint,
                                                              () -> new StoredResponse(201, "{\"order\":\"o-2\"}"));

        assertThat(first.outcome()).as(String.valueOf(first.problem())).isEqualTo(IdempotencyResult.Outcome.EXECUTED);
        assertThat(retry.outcome()).isEqualTo(IdempotencyResult.Outcome.REPLAYED);
        assertThat(retry.response().body()).isEqualTo("{\"order\":\"o-1\"}");
        assertThat(regions.cn.idempotencyRecord("k-1").value().response()).isEqualTo(first.response());
        assertThat(regions.eu.idempotencyRecord("k-1").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        assertThat(served("claim", "ok")).isEqualTo(1);
        assertThat(served("complete", "ok")).isEqualTo(1);
    }

    @Test
    void with_cns_server_stopped_a_new_key_is_not_ready_and_nothing_runs() {
        cnServes.close();

        IdempotencyResult r = eu.checkouts().execute("k-1", "ann", "f", () -> new StoredResponse(201, "o-1"));

        assertThat(r.problem().type()).isEqualTo(DataProblem.Type.DATA_NOT_READY);
        assertThat(regions.cn.idempotencyRecord("k-1").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
    }

    @Test
    void eu_finds_data_cn_holds_for_a_unit_it_does_not_own_by_copy_reads_and_knows_when_cn_could_not_answer() {
        // bob is at home in eu (u-eu), but his account and a completed checkout were written in cn during a failover.
        OtherRegions others = OtherRegions.network(EU, List.of(CN, EU), key -> Home.of(key, "u-eu", EU), euReads);
        regions.cn.putAccount(new Account("bob", "u-eu", EU, "Bob", regions.clock.instant()));
        regions.cn.claim(IdempotencyRecord.inFlight("k-1", "bob", "f", regions.clock.instant(),
                                                    regions.clock.instant().plus(Duration.ofHours(1))));
        regions.cn.complete("k-1", new StoredResponse(201, "o-1"));

        assertThat(others.account("bob").value().name()).isEqualTo("Bob");
        assertThat(others.account("nobody").found()).isFalse();
        assertThat(others.account("nobody").unanswered()).isEmpty();
        assertThat(others.completedCheckout("k-1", "bob", "f")).hasValue(new StoredResponse(201, "o-1"));
        assertThat(others.completedCheckout("k-1", "bob", "another fingerprint")).isEmpty();

        cnServes.close();
        OtherRegions.Lookup<Account> cnDown = others.account("bob");

        assertThat(cnDown.found()).isFalse();
        assertThat(cnDown.unanswered()).singleElement().asString().contains("region cn cannot be read");
    }

    private double served(String operation, String outcome) {
        var c = meters.find("unitas.data.home.idempotency.served").tag("region", "cn").tag("operation", operation)
                      .tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void an_account_cn_does_not_have_is_not_found_because_cn_says_so() {
        ReadinessResult<Account> nobody = eu.accounts().read("nobody");

        assertThat(nobody.outcome()).as(String.valueOf(nobody.problem())).isEqualTo(ReadinessResult.Outcome.NOT_FOUND);
    }

    @Test
    void with_cns_server_stopped_the_account_is_not_ready_never_not_found() {
        regions.cn.putAccount(new Account("ann", "u-cn", CN, "Ann", regions.clock.instant()));
        cnServes.close();

        ReadinessResult<Account> account = eu.accounts().read("ann");

        assertThat(account.outcome()).isEqualTo(ReadinessResult.Outcome.NOT_READY);
        assertThat(account.problem().detail()).contains("cn");
    }
}
