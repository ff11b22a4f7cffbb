package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.saga.SagaState;
import io.unitas.data.saga.SagaRecord;
import io.unitas.spring.app.MutableRoutingState;
import io.unitas.spring.saga.TransferApp;
import io.unitas.spring.sagabad.BadSagaApp;
import io.unitas.testkit.Await;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * "A saga is declared as beans (steps and compensations as methods of the service), the coordinator runs inside the
 * service on the starter; no separate server to operate": a credit service running in cn, on PostgreSQL, whose
 * transfer saga is two {@link SagaStep} methods; each step writes in its account's home (cn's or eu's database) and
 * never into a fenced unit; a stuck saga is listed at {@code /actuator/sagas} and retried there, audited.
 */
class SagaStepTest {

    static final SqlServer PG = PostgresCluster.shared().primary();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static String cnDb;
    private static String euDb;
    private static ConfigurableApplicationContext app;
    private static TransferApp.Transfers transfers;

    @BeforeAll
    static void start() {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        cnDb = "saga_cn_" + suffix;
        euDb = "saga_eu_" + suffix;
        PG.execute("CREATE DATABASE " + cnDb, "CREATE DATABASE " + euDb);
        app = new SpringApplicationBuilder(TransferApp.class).run(
                "--server.port=0",
                "--unitas.region=cn",
                "--transfer.cn-url=" + url(cnDb),
                "--transfer.eu-url=" + url(euDb),
                "--unitas.saga.data-source=cnDb",
                "--unitas.saga.stores.eu=euDb",
                "--unitas.saga.fence-wait=300ms",
                "--unitas.saga.max-attempts=2",
                "--unitas.saga.initial-backoff=50ms",
                "--unitas.saga.recover-every=100ms",
                "--management.endpoints.web.exposure.include=sagas");
        transfers = app.getBean(TransferApp.Transfers.class);
    }

    private static String url(String db) {
        return "jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + db;
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        PG.execute("DROP DATABASE IF EXISTS " + cnDb + " WITH (FORCE)", "DROP DATABASE IF EXISTS " + euDb
                                                                          + " WITH (FORCE)");
    }

    @AfterEach
    void liftFences() {
        app.getBean(MutableRoutingState.class).fence(null, null);
        transfers.refundFails = false;
    }

    @Test
    void aTransferBetweenUnits_runsEachStepInItsAccountsHome_andCompletes() {
        long before10 = credit(cnDb, "10");
        long before40 = credit(euDb, "40");

        SagaRecord done = transfers.transfer("10", "40", 30);

        assertThat(done.status().state()).isEqualTo(SagaState.COMPLETED);
        assertThat(credit(cnDb, "10")).as("debited in cn, its home").isEqualTo(before10 - 30);
        assertThat(credit(euDb, "40")).as("credited in eu, its home, from a service in cn").isEqualTo(before40 + 30);
    }

    @Test
    void aRefusedCredit_compensatesTheDebit() {
        long before = total();

        SagaRecord done = transfers.transfer("10", "41", 30);

        assertThat(done.status().state()).isEqualTo(SagaState.COMPENSATED);
        assertThat(done.lastError()).hasValue("StepRefused: 41: account closed");
        assertThat(total()).isEqualTo(before);
    }

    @Test
    void aStepForAFencedUnit_waitsItsBound_thenCompensates_writingNothingThere() {
        long before40 = credit(euDb, "40");
        long before = total();
        app.getBean(MutableRoutingState.class).fence("u-eu", FencePolicy.reject(Duration.ofSeconds(5)));

        SagaRecord done = transfers.transfer("10", "40", 30);

        assertThat(done.status().state()).isEqualTo(SagaState.COMPENSATED);
        assertThat(done.lastError()).hasValueSatisfying(e -> assertThat(e)
                .contains("unit u-eu (home of '40') fenced for longer than the step's wait of PT0.3S"));
        assertThat(credit(euDb, "40")).isEqualTo(before40);
        assertThat(count(euDb, "SELECT COUNT(*) FROM unitas_saga_applied WHERE saga_id = '" + done.id() + "'"))
                .as("nothing of this saga recorded in the fenced unit's store").isZero();
        assertThat(total()).isEqualTo(before);
    }

    @Test
    void aStuckSaga_isListedAndCounted_thenRetriedByAnOperator_audited() throws Exception {
        transfers.refundFails = true;
        SagaRecord started = transfers.transfer("10", "41", 30);
        // the refund failed once; whether its retry already ran (and gave up) inside this call depends on how long
        // the first attempt took against the 50 ms backoff, so both states are right here
        assertThat(started.status().state()).isIn(SagaState.COMPENSATING, SagaState.FAILED);

        // the recovery loop of the service retries the refund after its backoff, then gives up: stuck
        Await.until("the saga listed as stuck", Duration.ofSeconds(30), () -> body("/actuator/sagas")
                .contains(started.id()));
        HttpResponse<String> listed = get("/actuator/sagas");
        assertThat(listed.statusCode()).isEqualTo(200);
        assertThat(listed.body()).contains("\"state\":\"failed\"")
                .contains("\"last_error\":\"SQLException: refund: the store refuses writes\"");
        assertThat(app.getBean(MeterRegistry.class).get("unitas.saga.stuck").gauge().value()).isEqualTo(1);

        HttpResponse<String> nobody = post("/actuator/sagas/" + started.id(),
                                           "{\"action\":\"retry\",\"who\":\"\",\"why\":\"store back\"}");
        assertThat(nobody.statusCode()).isEqualTo(400);
        assertThat(nobody.body()).contains("(expected: who acts and why, both recorded)");
        HttpResponse<String> wrong = post("/actuator/sagas/" + started.id(),
                                          "{\"action\":\"undo\",\"who\":\"anna@ops\",\"why\":\"store back\"}");
        assertThat(wrong.statusCode()).isEqualTo(400);
        assertThat(wrong.body()).contains("action: 'undo' (expected: retry, resolve-completed or"
                                          + " resolve-compensated)");

        transfers.refundFails = false;
        HttpResponse<String> retried = post("/actuator/sagas/" + started.id(),
                                            "{\"action\":\"retry\",\"who\":\"anna@ops\",\"why\":\"store back\"}");
        assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
        // the retry drives the saga, unless the service's recovery loop took it first: either way it ends compensated
        Await.until("the retried saga compensated", Duration.ofSeconds(30),
                    () -> body("/actuator/sagas/" + started.id()).contains("\"state\":\"compensated\""));
        assertThat(get("/actuator/sagas").body()).doesNotContain(started.id());
        assertThat(count(cnDb, "SELECT COUNT(*) FROM unitas_saga_interventions WHERE saga_id = '" + started.id()
                               + "' AND who = 'anna@ops' AND action = 'retry' AND reason = 'store back'"))
                .isEqualTo(1);
        HttpResponse<String> again = post("/actuator/sagas/" + started.id(),
                                          "{\"action\":\"resolve-completed\",\"who\":\"anna@ops\",\"why\":\"x\"}");
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(again.body()).contains("compensated (expected: failed; only a stuck saga is retried or resolved)");
    }

    @Test
    void wrongDeclarations_failTheStart_namingEachMethod() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(BadSagaApp.class).web(WebApplicationType.NONE)
                .run("--unitas.region=cn").close())
                .rootCause()
                .hasMessageContaining("Payments.charge: parameters [String] (expected: one StepContext)")
                .hasMessageContaining("repeats the order of Payments.")
                .hasMessageContaining("(expected: one step per order in a saga)")
                .hasMessageContaining("Payments.ship: timeout 'soon' (expected: a duration such as 2s or 500ms)")
                .hasMessageContaining("Payments.reserve: compensation 'nope' (expected: a method nope(StepContext)"
                                      + " of Payments)")
                .hasMessageContaining("saga notify: steps[0] (mail): no compensation");
    }

    @Test
    void docsSagaMd_quotesTheTransferServiceUnchanged() throws Exception {
        String source = Files.readString(Path.of("src/test/java/io/unitas/spring/saga/TransferApp.java"));
        String begin = "        // doc:begin\n";
        String example = source.substring(source.indexOf(begin) + begin.length(), source.indexOf("        // doc:end"))
                .replaceAll("(?m)^    ", "");   // the doc shows the class at its own indentation
        assertThat(example).contains("@SagaStep");
        assertThat(Files.readString(Path.of("../docs/saga.md"))).contains(example);
    }

    private static long credit(String db, String account) {
        return count(db, "SELECT credit FROM accounts WHERE id = '" + account + "'");
    }

    private static long total() {
        return count(cnDb, "SELECT SUM(credit) FROM accounts") + count(euDb, "SELECT SUM(credit) FROM accounts");
    }

    private static long count(String db, String sql) {
        try (Connection c = DriverManager.getConnection(url(db), "postgres", "");
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private static int port() {
        return ((WebServerApplicationContext) app).getWebServer().getPort();
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path)).build(),
                         HttpResponse.BodyHandlers.ofString());
    }

    private static String body(String path) {
        try {
            return get(path).body();
        } catch (Exception e) {
            throw new IllegalStateException(path + ": " + e, e);
        }
    }

    private static HttpResponse<String> post(String path, String json) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
                                 .header("Content-Type", "application/json")
                                 .POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                         HttpResponse.BodyHandlers.ofString());
    }
}
