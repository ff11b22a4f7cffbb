package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.spring.wallet.MovableRoutingState;
import io.unitas.spring.wallet.WalletApp;
import io.unitas.testkit.Ports;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two regions of one wallet service, eu and us, as two application contexts in one JVM, each with its own
 * PostgreSQL database and its own home-read server, talking over real HTTP/2 on loopback with nothing wired by hand:
 * a deposit for a user homed in us, made in eu, is claimed in us's database over the network; the same key sent
 * again from either region replays; another user of the same unit sending that key gets 422; a wallet homed in us is
 * read in eu from us; and us stops serving a unit it no longer owns by the live unit map.
 */
class TwoRegionsTest {

    static final SqlServer PG = PostgresCluster.shared().primary();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String TOKEN = "between-regions-" + UUID.randomUUID();

    private static String euDb;
    private static String usDb;
    private static ConfigurableApplicationContext eu;
    private static ConfigurableApplicationContext us;

    @BeforeAll
    static void startBothRegions() {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        euDb = "wallet_eu_" + suffix;
        usDb = "wallet_us_" + suffix;
        PG.execute("CREATE DATABASE " + euDb, "CREATE DATABASE " + usDb);
        int euReads = Ports.free();
        int usReads = Ports.free();
        us = region("us", usDb, usReads, "eu", "http://127.0.0.1:" + euReads);
        eu = region("eu", euDb, euReads, "us", "http://127.0.0.1:" + usReads);
    }

    /** One region of the wallet service, its home-read server on {@code readPort}, its one peer at {@code peerUri}. */
    static ConfigurableApplicationContext region(String region, String db, int readPort, String peer, String peerUri,
                                                 String... more) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(
                "--server.port=0",
                "--unitas.region=" + region,
                "--wallet.db-url=jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + db,
                "--unitas.readiness.home-reads.token=" + TOKEN,
                "--unitas.readiness.home-reads.server.port=" + readPort,
                "--unitas.readiness.home-reads.endpoints." + peer + "=" + peerUri,
                // generous for a loaded machine: the reads below are not about timing
                "--unitas.readiness.home-reads.timeout=20s"));
        args.addAll(java.util.List.of(more));
        return new SpringApplicationBuilder(WalletApp.class).run(args.toArray(String[]::new));
    }

    @AfterAll
    static void stop() {
        if (eu != null) {
            eu.close();
        }
        if (us != null) {
            us.close();
        }
        PG.execute("DROP DATABASE IF EXISTS " + euDb + " WITH (FORCE)", "DROP DATABASE IF EXISTS " + usDb
                                                                       + " WITH (FORCE)");
    }

    @AfterEach
    void unitsBackHome() {
        us.getBean(MovableRoutingState.class).reset();
        eu.getBean(MovableRoutingState.class).reset();
    }

    @Test
    void aDepositForAUserHomedInUs_madeInEu_isClaimedInUs_andASecondSendFromEitherRegionReplays() throws Exception {
        HttpResponse<String> first = deposit(eu, "70", "k-70", 5);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(query(usDb, "SELECT user_id FROM unitas_idempotency WHERE idem_key = 'k-70'"))
                .as("the record, in us's database").isEqualTo("70");
        assertThat(query(euDb, "SELECT COUNT(*) FROM unitas_idempotency")).isEqualTo("0");

        HttpResponse<String> fromUs = deposit(us, "70", "k-70", 5);
        HttpResponse<String> fromEu = deposit(eu, "70", "k-70", 5);

        for (HttpResponse<String> replay : java.util.List.of(fromUs, fromEu)) {
            assertThat(replay.statusCode()).as(replay.body()).isEqualTo(201);
            assertThat(replay.body()).isEqualTo(first.body());
            assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
            assertThat(replay.headers().firstValue("Location")).contains("/wallets/70");
            assertThat(replay.headers().firstValue("Content-Type")).isEqualTo(first.headers()
                                                                                   .firstValue("Content-Type"));
        }
        assertThat(balanceRows("70")).as("deposits made, in both regions' databases").isEqualTo(1);
        assertThat(us.getBean(MeterRegistry.class).find("unitas.data.home.idempotency.served")
                     .tag("operation", "claim").tag("outcome", "ok").counter())
                .as("claims us served").isNotNull()
                .satisfies(c -> assertThat(c.count()).isGreaterThanOrEqualTo(1));
    }

    @Test
    void theSameKeyFromAnotherUserOfTheSameUnit_is422_inEitherRegion() throws Exception {
        assertThat(deposit(eu, "71", "k-shared", 5).statusCode()).isEqualTo(201);

        for (ConfigurableApplicationContext region : java.util.List.of(eu, us)) {
            HttpResponse<String> other = deposit(region, "72", "k-shared", 5);
            assertThat(other.statusCode()).as(other.body()).isEqualTo(422);
            assertThat(other.headers().firstValue("Content-Type")).contains("application/problem+json");
            assertThat(other.body()).contains("idempotency-key-reused");
        }
        assertThat(balanceRows("72")).isZero();
    }

    @Test
    void aWalletHomedInUs_isReadInEuFromUs() throws Exception {
        execute(usDb, "INSERT INTO wallet (user_id, balance, version) VALUES ('77', 42, 3)");

        HttpResponse<String> read = get(eu, "/wallets/77");

        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        assertThat(read.body()).contains("\"balance\":42", "\"from\":\"HOME\"");
        assertThat(get(eu, "/wallets/78").statusCode()).as("us says there is none").isEqualTo(404);
    }

    @Test
    void aUnitUsNoLongerOwns_isNotServedByUs_andEuSaysWhichHomeItTried() throws Exception {
        us.getBean(MovableRoutingState.class).move("u-us", "eu");

        HttpResponse<String> refused = deposit(eu, "73", "k-73", 5);

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
        assertThat(refused.body()).contains("data-not-ready", "us");
        assertThat(query(usDb, "SELECT COUNT(*) FROM unitas_idempotency WHERE idem_key = 'k-73'"))
                .isEqualTo("0");
        assertThat(balanceRows("73")).isZero();
    }

    @Test
    void aHomeWithoutAPeer_isNamedByTheProperty() throws Exception {
        HttpResponse<String> notReady = deposit(eu, "10", "k-10", 5);

        assertThat(notReady.statusCode()).as(notReady.body()).isEqualTo(503);
        assertThat(notReady.body()).contains("unitas.readiness.home-reads.endpoints.cn");
    }

    @Test
    void theHomeReadServer_isAHealthComponentOfEachRegion() throws Exception {
        HttpResponse<String> health = get(eu, "/actuator/health");

        assertThat(health.body()).contains("\"unitasHomeReads\":{\"status\":\"UP\"}");
        HomeReadServing serving = eu.getBean(HomeReadServing.class);
        assertThat(serving.types()).containsExactly("wallet");
        assertThat(serving.servesIdempotency()).isTrue();
        eu.getBean(HomeReadServing.class).stop();
        try {
            assertThat(get(eu, "/actuator/health").body()).contains("\"unitasHomeReads\":{\"status\":\"DOWN\"}");
        } finally {
            serving.start();
        }
    }

    private static long balanceRows(String user) {
        return Long.parseLong(query(euDb, "SELECT COUNT(*) FROM wallet WHERE user_id = '" + user + "'"))
               + Long.parseLong(query(usDb, "SELECT COUNT(*) FROM wallet WHERE user_id = '" + user + "'"));
    }

    /** The first column of the first row of {@code sql} in the database {@code db}. */
    static String query(String db, String sql) {
        try (Connection c = connect(db); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            return r.next() ? r.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(db + ": " + e.getMessage(), e);
        }
    }

    static void execute(String db, String sql) {
        try (Connection c = connect(db); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(db + ": " + e.getMessage(), e);
        }
    }

    static Connection connect(String db) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + db, PG.admin());
    }

    static int port(ConfigurableApplicationContext region) {
        return ((WebServerApplicationContext) region).getWebServer().getPort();
    }

    static HttpResponse<String> deposit(ConfigurableApplicationContext region, String user, String key, long amount)
            throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(region) + "/wallets/" + user
                                                           + "/deposits"))
                                    .header("Content-Type", "application/json").header("Idempotency-Key", key)
                                    .timeout(Duration.ofSeconds(60))
                                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": " + amount + "}")).build(),
                         HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(ConfigurableApplicationContext region, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(region) + path))
                                    .timeout(Duration.ofSeconds(60)).build(),
                         HttpResponse.BodyHandlers.ofString());
    }
}
