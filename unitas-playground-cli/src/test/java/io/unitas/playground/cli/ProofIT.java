package io.unitas.playground.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.wire.SwitchoverRequest;
import io.unitas.control.client.wire.SwitchoverView;
import io.unitas.core.Region;
import io.unitas.playground.ProcessDeployment;
import io.unitas.testkit.Await;
import io.unitas.testkit.Ports;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wallet service ({@code examples/wallet}, the starter alone plus its table and a few beans) across three regions
 * as separate processes, started from the packaged {@code unitas-playground.jar} as {@code unitas up --processes} starts them:
 * the control plane; one Kafka broker (KRaft) the regions replicate through; per region a PostgreSQL server, a
 * gateway, a health agent reporting the region's unit positions, and one wallet instance (one, not two, to spare two
 * cores a start of nine JVMs). One deployment serves every check, in order: each check leaves the deployment as the
 * next one expects it (the switchover moves {@code u-eu} to us; the promotion kills cn last).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SuppressWarnings("unchecked") // an array of a generic response, to keep the last one a wait saw
class ProofIT {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    /** HTTP/1.1: the JDK client's h2c upgrade of a request with a body is refused (413) by the gateway's server. */
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                                                     .connectTimeout(Duration.ofSeconds(5)).build();
    /** Generous: every wait below is for real processes on a shared two-core machine, none is a timing decision. */
    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    static Path dir;
    private static ProcessDeployment deployment;
    private static ControlClient control;
    private static String firstAnswer;
    private static long started;

    @BeforeAll
    static void start() throws Exception {
        started = System.nanoTime();
        deployment = ProcessDeployment.builder().regions(List.of(CN, EU, US)).portsFrom(Ports.range(64))
                                      .deployDir(dir.resolve("deploy"))
                                      .classPath(Cli.root().resolve("unitas-playground-cli/target/unitas-playground.jar").toString())
                                      .instances(1).replication(ProcessDeployment.Replication.KAFKA)
                                      .progress(line -> System.out.println("proof: " + line)).start();
        System.out.printf("proof: %d processes, %d MB resident, started in %d s%n", deployment.pids().size(),
                          deployment.residentBytes() / (1024 * 1024), deployment.startTime().toSeconds());
        control = ControlClient.of(deployment.control(),
                                   Files.readString(deployment.deployDir().resolve("tokens/admin.token")).strip());
    }

    @AfterAll
    static void stop() {
        if (deployment != null) {
            deployment.close();
        }
        System.out.printf("proof: took %d s in all%n", Duration.ofNanos(System.nanoTime() - started).toSeconds());
    }

    @Test
    @Order(1)
    void aKeySentTwice_chargesOnce_fromEitherRegion() throws Exception {
        String user = deployment.userId(EU, 1);
        HttpResponse<String> first = deposit(deployment.gateway(EU), user, "proof-k1", 5);
        HttpResponse<String> again = deposit(deployment.gateway(CN), user, "proof-k1", 5); // entering at cn

        assertThat(first.statusCode()).as("the first deposit: " + first.body()).isEqualTo(201);
        assertThat(again.statusCode()).as("the same key through cn's gateway: " + again.body()).isEqualTo(201);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).as("the second send is a replay")
                                                                       .contains("true");
        assertThat(again.body()).as("the replay is the first answer").isEqualTo(first.body());
        assertThat(query(EU, "SELECT COUNT(*) FROM wallet_ledger WHERE deposit_key = 'proof-k1'"))
                .as("ledger lines of the key in the home's (eu's) database").isEqualTo("1");
        assertThat(query(EU, "SELECT balance FROM wallet WHERE user_id = '" + user + "'")).as("charged once")
                                                                                           .isEqualTo("5");
        firstAnswer = first.body();
    }

    @Test
    @Order(2)
    void anotherUserWithTheSameKey_isNeverGivenTheFirstUsersAnswer() throws Exception {
        String other = deployment.userId(EU, 2); // the same unit, another user
        HttpResponse<String> res = deposit(deployment.gateway(US), other, "proof-k1", 5);

        assertThat(res.statusCode()).as("another owner of the key: " + res.body()).isEqualTo(422);
        assertThat(res.body()).as("a problem, not the first user's wallet").contains("idempotency-key-reused")
                              .doesNotContain("\"balance\"");
        assertThat(query(EU, "SELECT COUNT(*) FROM wallet_ledger WHERE user_id = '" + other + "'"))
                .as("nothing charged to the other user").isEqualTo("0");
    }

    @Test
    @Order(3)
    void theStamp_reachesTheAsyncReceipt() {
        assertThat(firstAnswer).as("the deposit's answer carries a receipt issued on the @Async pool, naming the unit"
                                   + " the stamp says")
                               .contains("\"receipt\":{", "\"unit\":\"u-eu\"", "\"thread\":\"wallet-async-");
    }

    @Test
    @Order(4)
    void aWrongRegionWrite_pastTheGateway_isRefused() throws Exception {
        String user = deployment.userId(EU, 3);
        HttpResponse<String> res = deposit(deployment.wallets(CN).get(0), user, "proof-k4", 5);

        assertThat(res.statusCode()).as("an eu user's deposit straight to cn's wallet: " + res.body())
                                    .isEqualTo(421);
        assertThat(res.body()).as("the problem names the home").contains("not-home-region", "\"home\":\"eu\"");
        assertThat(query(CN, "SELECT COUNT(*) FROM wallet_ledger WHERE user_id = '" + user + "'"))
                .as("nothing charged in cn").isEqualTo("0");
    }

    @Test
    @Order(5)
    void withReplicationPaused_aReadElsewhereComesFromHome_andASwitchoverWaitsOnTheLag() throws Exception {
        String user = deployment.userId(EU, 5);
        // first the link from eu to us is measured and caught up: test 1's wallet has reached us
        awaitCaughtUp("u-eu", EU, US, deployment.userId(EU, 1));
        deployment.pauseReplication(true);
        try {
            assertThat(deposit(deployment.gateway(EU), user, "proof-k5", 42).statusCode()).as("deposit at home")
                                                                                            .isEqualTo(201);
            Instant deposited = Instant.now();
            // a read the home does not answer within the one home-read timeout (1 s here; a loaded machine) is a
            // retryable 503 data-not-ready, never a 404: the client asks again, as it is told to
            HttpResponse<String>[] last = new HttpResponse[1];
            Await.until("a read at cn that is not 503 data-not-ready", WAIT, () -> {
                last[0] = get(deployment.wallets(CN).get(0).resolve("/wallets/" + user));
                assertThat(last[0].statusCode()).as("read at cn, never 404: " + last[0].body()).isNotEqualTo(404);
                return !(last[0].statusCode() == 503 && last[0].body().contains("data-not-ready"));
            });
            HttpResponse<String> read = last[0];
            assertThat(query(CN, "SELECT COUNT(*) FROM wallet WHERE user_id = '" + user + "'"))
                    .as("cn's database has not got the wallet (replication paused)").isEqualTo("0");
            assertThat(read.statusCode()).as("read at cn: " + read.body()).isEqualTo(200);
            assertThat(read.body()).as("read at cn, from the home").contains("\"balance\":42", "\"from\":\"home\"");

            // the control plane sees eu's kept change that us has not applied: the move of u-eu waits, then rolls back
            Await.until("the control plane measures u-eu's change that us lacks", WAIT,
                        () -> measuredSince(link("u-eu", "eu", "us"), deposited).path("changes").asLong(0) >= 1);
            String before = "before the switchover: link " + link("u-eu", "eu", "us") + "; eu's positions "
                            + state().path("health").path("eu").path("positions") + "; us's positions "
                            + state().path("health").path("us").path("positions");
            SwitchoverView sw = switchover(SwitchoverRequest.move(List.of("u-eu"), "us")
                                                            .withTimeout(Duration.ofSeconds(15))
                                                            .withReason("proof: replication paused"));
            assertThat(sw.phase()).as("the switchover while the lag stays: " + sw + "; " + before)
                                  .isEqualTo("rolled_back");
            // (the lag was measured above; a report that a loaded machine delays past the health TTL at the deadline
            // may make the outcome read "unknown": either way it did not flip)
            assertThat(sw.outcome()).as("it names the lag it waited on").contains("u-eu", "lag");
            assertThat(homeOf("u-eu")).as("the mapping is unchanged").isEqualTo("eu");
        } finally {
            deployment.pauseReplication(false);
        }
    }

    @Test
    @Order(6)
    void afterReplicationResumes_theOtherRegionsHoldTheWallet_andTheSwitchoverCompletes() throws Exception {
        String user = deployment.userId(EU, 5);
        for (Region r : List.of(CN, US)) {
            Await.until(r + "'s database holds " + user + "'s wallet, replicated over Kafka", WAIT,
                        () -> "42".equals(query(r, "SELECT balance FROM wallet WHERE user_id = '" + user + "'")));
        }
        assertThat(query(US, "SELECT COUNT(*) FROM wallet_ledger WHERE user_id = '" + user + "'"))
                .as("us holds the wallet, the ledger stays the home's").isEqualTo("0");

        SwitchoverView sw = switchover(SwitchoverRequest.move(List.of("u-eu"), "us").withTimeout(Duration.ofSeconds(90))
                                                        .withReason("proof: replication resumed"));
        assertThat(sw.phase()).as("the switchover once the lag drained: " + sw).isEqualTo("completed");
        assertThat(sw.toString()).as("it waited on the measured lag").contains("u-eu caught up in us");
        assertThat(homeOf("u-eu")).as("u-eu's home").isEqualTo("us");
    }

    @Test
    @Order(7)
    void aPromotion_afterKill9_statesANumericRpo() throws Exception {
        String user = deployment.userId(CN, 7);
        assertThat(deposit(deployment.gateway(CN), user, "proof-k7a", 9).statusCode()).as("deposit at cn")
                                                                                        .isEqualTo(201);
        awaitCaughtUp("u-cn", CN, EU, user);
        deployment.pauseReplication(true); // what cn writes now never leaves it
        try {
            assertThat(deposit(deployment.gateway(CN), user, "proof-k7b", 1).statusCode()).as("deposit at cn")
                                                                                           .isEqualTo(201);
            Instant deposited = Instant.now();
            Await.until("the control plane measures u-cn's change that eu lacks", WAIT,
                        () -> measuredSince(link("u-cn", "cn", "eu"), deposited).path("changes").asLong(0) >= 1);
            deployment.killRegion(CN);
            String before = "before the promotion: link " + link("u-cn", "cn", "eu") + "; cn's positions "
                            + state().path("health").path("cn").path("positions") + "; eu's positions "
                            + state().path("health").path("eu").path("positions") + "; eu's database holds balance "
                            + query(EU, "SELECT balance FROM wallet WHERE user_id = '" + user + "'");

            SwitchoverView sw = switchover(SwitchoverRequest.promote(List.of("u-cn"), "eu")
                                                            .withTimeout(Duration.ofSeconds(30))
                                                            .withReason("proof: cn killed"));
            assertThat(sw.phase()).as("the promotion: " + sw).isEqualTo("completed");
            assertThat(sw.rpoMs().get("u-cn")).as("u-cn's RPO is a number of ms: " + sw).isNotNull()
                                              .isGreaterThanOrEqualTo(0L);
            assertThat(sw.steps().toString()).as("its steps state the RPO with the changes eu had not applied; "
                                                 + before)
                                             .containsPattern("RPO u-cn \\d+ ms \\([1-9]\\d* change");
            assertThat(homeOf("u-cn")).as("u-cn's home").isEqualTo("eu");
            assertThat(control.audit(0, 1000).entries()).as("the audit has the promotion")
                                                       .anyMatch(e -> e.action().equals("switchover.promote"));
        } finally {
            deployment.pauseReplication(false);
        }
    }

    // ---- helpers ----

    /** Waits until {@code user}'s wallet is in {@code to}'s database and the control plane sees the link caught up. */
    private static void awaitCaughtUp(String unit, Region from, Region to, String user) {
        String balance = query(from, "SELECT balance FROM wallet WHERE user_id = '" + user + "'");
        Await.until(to + "'s database holds " + user + "'s wallet from " + from, WAIT,
                    () -> balance != null && balance.equals(query(to, "SELECT balance FROM wallet WHERE user_id = '"
                                                                      + user + "'")));
        Instant applied = Instant.now();
        Await.until("the control plane measures " + unit + " from " + from + " to " + to + " caught up", WAIT,
                    () -> measuredSince(link(unit, from.id(), to.id()), applied).path("changes").asLong(-1) == 0);
    }

    /**
     * {@code link} if both regions' positions behind it were read after {@code since} (a link is measured at the
     * older of the two readings), else missing: on a loaded machine an agent's last report can predate what the test
     * just did, and a link from it says nothing about that.
     */
    private static JsonNode measuredSince(JsonNode link, Instant since) {
        return !link.isMissingNode() && Instant.parse(link.path("measured_at").asText()).isAfter(since)
               ? link : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    /** Starts a switchover and waits for its end ({@code completed}, {@code rolled_back} or {@code aborted}). */
    private static SwitchoverView switchover(SwitchoverRequest request) {
        String id = control.startSwitchover(request).switchover().orElseThrow().id();
        SwitchoverView[] last = new SwitchoverView[1];
        Await.until("switchover " + id + " ended", Duration.ofSeconds(180), () -> {
            last[0] = control.switchover(id);
            return last[0].ended();
        });
        System.out.println("proof: switchover " + id + ": " + last[0]);
        return last[0];
    }

    /** The control plane's state as JSON, to read homes and per-unit lag links. */
    private static JsonNode state() {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(control.state().json());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("the control plane's state: " + e.getMessage(), e);
        }
    }

    private static String homeOf(String unit) {
        for (JsonNode u : state().findValues("units")) {
            for (JsonNode e : u) {
                if (unit.equals(e.path("id").asText())) {
                    return e.path("region").asText();
                }
            }
        }
        return "none";
    }

    private static JsonNode link(String unit, String from, String to) {
        for (JsonNode links : state().findValues("unit_links")) {
            for (JsonNode l : links) {
                if (unit.equals(l.path("unit").asText()) && from.equals(l.path("from").asText())
                    && to.equals(l.path("to").asText())) {
                    return l;
                }
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    private static HttpResponse<String> deposit(URI base, String user, String key, long amount) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base.resolve("/wallets/" + user + "/deposits"))
                                    .timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
                                    .header("Idempotency-Key", key)
                                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + amount + "}")).build(),
                         HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(URI uri) {
        try {
            return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                             HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(uri + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String query(Region region, String sql) {
        Properties user = new Properties();
        user.setProperty("user", "postgres");
        try (Connection c = DriverManager.getConnection(deployment.databaseUrl(region), user);
             Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            return r.next() ? r.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(region + ": " + e.getMessage(), e);
        }
    }
}
