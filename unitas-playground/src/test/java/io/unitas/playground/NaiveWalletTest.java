package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.example.wallet.WalletService;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The naive setup's wallet configuration, as the process deployment writes it, run: cn's and eu's wallets on the
 * files {@code deploy-naive/<region>/} holds (database and port overridden for the test), each its own database.
 * Every region believes it is every user's home: a write of another region's user is served (not 421), its
 * Idempotency-Key record kept in the serving region, so the same key sent to the other region charges again; a read
 * is local only, so a wallet only the other region holds is "not found", not read from its home.
 */
class NaiveWalletTest {

    private static final SqlServer PG = PostgresCluster.shared().primary();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private static final List<Region> REGIONS = List.of(Region.of("cn"), Region.of("eu"));
    private static final Map<Region, ConfigurableApplicationContext> wallets = new LinkedHashMap<>();

    @TempDir
    static Path dir;

    @BeforeAll
    static void startNaiveWallets() {
        ProcessDeployment.Builder b = ProcessDeployment.builder().regions(REGIONS).portsFrom(41000).classPath("none")
                                                       .deployDir(dir).instances(1).naive(true)
                                                       .replication(ProcessDeployment.Replication.NONE);
        DefaultProcessDeployment.files(b);
        for (Region r : REGIONS) {
            PG.execute("CREATE DATABASE " + db(r));
            wallets.put(r, WalletService.application().run(
                    "--spring.config.additional-location=file:" + dir.resolve(r.id() + "/wallet-a.properties"),
                    "--server.port=0", "--wallet.db.url=jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + db(r)));
        }
    }

    @AfterAll
    static void stop() {
        wallets.values().forEach(ConfigurableApplicationContext::close);
        REGIONS.forEach(r -> PG.execute("DROP DATABASE IF EXISTS " + db(r) + " WITH (FORCE)"));
    }

    private static String db(Region r) {
        return "naive_" + r.id() + "_" + SUFFIX;
    }

    @Test
    void theFiles_nameNoControlPlane_noHomeReads_andHomeEveryUnitInTheirRegion() throws Exception {
        String props = Files.readString(dir.resolve("eu/wallet-a.properties"));
        String rules = Files.readString(dir.resolve("eu/rules.yaml"));

        assertThat(props).contains("unitas.write-guard.mode=allow", "unitas.rules=file:" + dir.resolve("eu/rules.yaml"))
                         .doesNotContain("control-plane", "home-reads", "replication");
        assertThat(rules).contains("{id: u-cn, region: eu}", "{id: u-eu, region: eu}")
                         .doesNotContain("region: cn}");
        assertThat(dir.resolve("eu/gateway.yaml")).doesNotExist();
    }

    @Test
    void anotherRegionsUser_isServedHere_andTheSameKeyElsewhereChargesAgain() throws Exception {
        String euUser = "1007"; // ids 1000..1999 live in eu by the deployment's rules

        HttpResponse<String> atCn = deposit(Region.of("cn"), euUser, "k-naive-1");
        HttpResponse<String> atEu = deposit(Region.of("eu"), euUser, "k-naive-1");

        assertThat(atCn.statusCode()).as(atCn.body()).isEqualTo(201);
        assertThat(atEu.statusCode()).as(atEu.body()).isEqualTo(201);
        assertThat(atEu.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(query(Region.of("cn"), "SELECT COUNT(*) FROM unitas_idempotency WHERE idem_key = 'k-naive-1'"))
                .as("cn kept its own record of the key").isEqualTo("1");
        assertThat(query(Region.of("cn"), "SELECT COUNT(*) FROM wallet_ledger WHERE deposit_key = 'k-naive-1'")
                   + query(Region.of("eu"), "SELECT COUNT(*) FROM wallet_ledger WHERE deposit_key = 'k-naive-1'"))
                .as("one ledger line in each region: charged twice").isEqualTo("11");
    }

    @Test
    void aWalletOnlyItsHomeHolds_isNotFoundElsewhere() throws Exception {
        String cnUser = "7";
        assertThat(deposit(Region.of("cn"), cnUser, "k-naive-2").statusCode()).isEqualTo(201);

        URI read = base(Region.of("eu")).resolve("/wallets/" + cnUser);
        HttpResponse<String> atEu = HTTP.send(HttpRequest.newBuilder(read).build(),
                                              HttpResponse.BodyHandlers.ofString());

        assertThat(atEu.statusCode()).as(atEu.body()).isEqualTo(404);
    }

    private static HttpResponse<String> deposit(Region r, String user, String key) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base(r).resolve("/wallets/" + user + "/deposits"))
                                    .header("content-type", "application/json").header("Idempotency-Key", key)
                                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")).build(),
                         HttpResponse.BodyHandlers.ofString());
    }

    private static URI base(Region r) {
        int port = ((WebServerApplicationContext) wallets.get(r)).getWebServer().getPort();
        return URI.create("http://127.0.0.1:" + port);
    }

    private static String query(Region r, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + db(r),
                                                        "postgres", "");
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
