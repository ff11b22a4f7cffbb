package io.unitas.example.wallet;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.testkit.Await;
import io.unitas.testkit.Ports;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The wallet in cn, eu and us, one application context each in this JVM, each on its own PostgreSQL database with
 * its own home-read server, the regions talking over HTTP/2 on loopback. eu and us replicate their wallets to each
 * other (the starter's embedded transport, which joins the regions of one JVM); cn takes no part in replication, so
 * what it knows of another region's users it learns from their home, whenever the test reads it. (The same service
 * as separate processes per region behind gateways, replicating over Kafka: the command line's {@code ProofIT}.)
 */
class WalletServiceTest {

    private static final SqlServer PG = PostgresCluster.shared().primary();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final List<String> REGIONS = List.of("cn", "eu", "us");
    private static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private static final Map<String, ConfigurableApplicationContext> wallets = new LinkedHashMap<>();
    private static final List<String> REPLICATING = List.of("eu", "us");

    @BeforeAll
    static void startThreeRegions() {
        Map<String, Integer> readPorts = new LinkedHashMap<>();
        for (String r : REGIONS) {
            PG.execute("CREATE DATABASE " + db(r));
            readPorts.put(r, Ports.free());
        }
        String token = "between-regions-" + UUID.randomUUID();
        for (String r : REGIONS) {
            List<String> args = new ArrayList<>(List.of(
                    "--unitas.region=" + r,
                    "--unitas.topology=classpath:unitas/topology.yaml",
                    "--unitas.rules=classpath:unitas/rules.yaml",
                    "--wallet.db.url=jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + db(r),
                    "--unitas.readiness.home-reads.token=" + token,
                    "--unitas.readiness.home-reads.server.port=" + readPorts.get(r),
                    // generous for a loaded machine: nothing below is about timing
                    "--unitas.readiness.home-reads.timeout=20s"));
            if (REPLICATING.contains(r)) {
                args.addAll(List.of("--unitas.replication.transport=embedded",
                                    "--unitas.replication.embedded.group=wallet-" + SUFFIX,
                                    "--unitas.replication.regions=" + String.join(",", REPLICATING),
                                    "--unitas.replication.ship-interval=20ms"));
            }
            for (String peer : REGIONS) {
                if (!peer.equals(r)) {
                    args.add("--unitas.readiness.home-reads.endpoints." + peer + "=http://127.0.0.1:"
                             + readPorts.get(peer));
                }
            }
            wallets.put(r, WalletService.application().run(args.toArray(String[]::new)));
        }
    }

    @AfterAll
    static void stop() {
        wallets.values().forEach(ConfigurableApplicationContext::close);
        for (String r : REGIONS) {
            PG.execute("DROP DATABASE IF EXISTS " + db(r) + " WITH (FORCE)");
        }
    }

    private static String db(String region) {
        return "wallet_" + region + "_" + SUFFIX;
    }

    @Test
    void aKeySentTwice_chargesOnce_andReplaysTheFirstAnswer_whileOtherRegionsRefuseTheWrite() throws Exception {
        HttpResponse<String> first = deposit("us", "2001", "k-2001", 5); // 2001: a us user, at home

        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        HttpResponse<String> again = deposit("us", "2001", "k-2001", 5);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        for (String region : List.of("cn", "eu")) {
            // nothing fails over here: a write of a us user that reaches cn or eu directly is refused before it
            // is claimed or run (the write guard), and names the region that takes it
            HttpResponse<String> elsewhere = deposit(region, "2001", "k-2001", 5);
            assertThat(elsewhere.statusCode()).as(region + ": " + elsewhere.body()).isEqualTo(421);
            assertThat(elsewhere.body()).contains("not-home-region", "\"home\":\"us\"");
        }
        assertThat(query("us", "SELECT user_id FROM unitas_idempotency WHERE idem_key = 'k-2001'"))
                .as("the record lives in the user's home, us").isEqualTo("2001");
        assertThat(query("us", "SELECT balance FROM wallet WHERE user_id = '2001'")).as("charged once, at home")
                .isEqualTo("5");
        assertThat(REGIONS.stream().mapToLong(r -> Long.parseLong(query(r, "SELECT COUNT(*) FROM wallet_ledger"
                                                                             + " WHERE deposit_key = 'k-2001'"))).sum())
                .as("ledger lines of the key, over every region's database").isEqualTo(1);
    }

    @Test
    void aKeyOfOneUser_isNeverReplayedToAnother() throws Exception {
        HttpResponse<String> mine = deposit("cn", "5", "k-shared", 7);
        assertThat(mine.statusCode()).as(mine.body()).isEqualTo(201);

        for (String region : REGIONS) {
            HttpResponse<String> other = deposit(region, "6", "k-shared", 7); // same unit, another user
            // at home the key's owner decides (422); elsewhere the write is refused before any claim (421)
            assertThat(other.statusCode()).as(region + ": " + other.body())
                    .isEqualTo(region.equals("cn") ? 422 : 421);
            assertThat(other.body()).doesNotContain("\"balance\"");
        }
        assertThat(deposit("cn", "6", "k-shared", 7).body()).contains("idempotency-key-reused");
        assertThat(sumOfBalances("6")).isZero();
    }

    @Test
    void aDeposit_reachesTheOtherReplicatingRegion_andAnOlderChangeNeverTakesAWalletBack() throws Exception {
        assertThat(deposit("us", "2700", "k-2700-1", 3).statusCode()).isEqualTo(201);
        assertThat(deposit("us", "2700", "k-2700-2", 4).statusCode()).isEqualTo(201);

        Await.until("us's wallet 2700 at version 2 in eu", Duration.ofSeconds(60),
                    () -> "7 2".equals(query("eu", "SELECT balance || ' ' || version FROM wallet"
                                                   + " WHERE user_id = '2700'")));
        assertThat(query("eu", "SELECT COUNT(*) FROM wallet_ledger WHERE user_id = '2700'"))
                .as("eu holds the wallet, not the deposits: the ledger is the home's").isEqualTo("0");
        assertThat(query("cn", "SELECT COUNT(*) FROM wallet WHERE user_id = '2700'"))
                .as("cn takes no part in replication").isEqualTo("0");

        // eu holds a newer 2701 than the change us is about to send (as after a promotion): it stays
        execute("eu", "INSERT INTO wallet (user_id, balance, version) VALUES ('2701', 100, 9)");
        assertThat(deposit("us", "2701", "k-2701", 1).statusCode()).isEqualTo(201);
        assertThat(deposit("us", "2700", "k-2700-3", 1).statusCode()).isEqualTo(201); // after 2701's change
        Await.until("us's third deposit of 2700 in eu", Duration.ofSeconds(60),
                    () -> "8".equals(query("eu", "SELECT balance FROM wallet WHERE user_id = '2700'")));
        assertThat(query("eu", "SELECT balance || ' ' || version FROM wallet WHERE user_id = '2701'"))
                .as("version 1 from us does not replace version 9").isEqualTo("100 9");
    }

    @Test
    void aUsersWallet_isReadFromItsHome_beforeReplicationBringsIt() throws Exception {
        assertThat(deposit("eu", "1077", "k-1077", 42).statusCode()).isEqualTo(201); // an eu user

        HttpResponse<String> inCn = get("cn", "/wallets/1077");
        HttpResponse<String> inEu = get("eu", "/wallets/1077");

        assertThat(query("cn", "SELECT COUNT(*) FROM wallet WHERE user_id = '1077'")).as("not in cn").isEqualTo("0");
        assertThat(inCn.statusCode()).as(inCn.body()).isEqualTo(200);
        assertThat(inCn.body()).contains("\"balance\":42", "\"from\":\"home\"");
        assertThat(inEu.body()).contains("\"balance\":42", "\"from\":\"local\"");
        assertThat(get("cn", "/wallets/1078").statusCode()).as("eu says there is none").isEqualTo(404);
    }

    @Test
    void theStamp_goesAlongIntoTheAsyncReceipt() throws Exception {
        HttpResponse<String> res = deposit("us", "2500", "k-2500", 1);

        assertThat(res.statusCode()).as(res.body()).isEqualTo(201);
        assertThat(res.body()).contains("\"receipt\":{", "\"unit\":\"u-us\"", "\"thread\":\"wallet-async-");
    }

    private static void execute(String region, String sql) {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + PG.port() + "/"
                                                        + db(region), PG.admin());
             Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(region + ": " + e.getMessage(), e);
        }
    }

    private static long sumOfBalances(String user) {
        long sum = 0;
        for (String r : REGIONS) {
            String b = query(r, "SELECT balance FROM wallet WHERE user_id = '" + user + "'");
            sum += b == null ? 0 : Long.parseLong(b);
        }
        return sum;
    }

    private static HttpResponse<String> deposit(String region, String user, String key, long amount)
            throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri(region, "/wallets/" + user + "/deposits"))
                                    .header("content-type", "application/json").header("Idempotency-Key", key)
                                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + amount + "}")).build(),
                         HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String region, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri(region, path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(String region, String path) {
        int port = ((WebServerApplicationContext) wallets.get(region)).getWebServer().getPort();
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static String query(String region, String sql) {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + PG.port() + "/"
                                                        + db(region), PG.admin());
             Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            return r.next() ? r.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(region + ": " + e.getMessage(), e);
        }
    }
}
