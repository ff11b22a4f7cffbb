package io.unitas.control;

import static io.unitas.control.Fixtures.RULES;
import static io.unitas.control.Fixtures.TOPOLOGY;
import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.testkit.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;

/** The API's contract on one control plane whose state the tests share (each reads the revision it needs). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControlApiTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");

    @TempDir
    static Path dir;

    private final MutableClock clock = new MutableClock(T0);
    private ControlServer server;
    private RawClient admin;
    private RawClient operator;

    @BeforeAll
    void start() {
        server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir)).clock(clock)
                              .healthFreshness(Duration.ofSeconds(10), Duration.ofSeconds(20))
                              .tick(Duration.ofMillis(20)).start();
        admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
        operator = RawClient.of(server.uri(), Fixtures.OPERATOR.secret());
        Fixtures.seed(admin, T0, 50);
    }

    private long revision() {
        return admin.get("/api/v1/state").revision();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void invalidTopology_is422_listingEveryProblemWithItsPath_andLeavesTheStateAlone() {
        long before = revision();
        ControlResponse res = admin.put("/api/v1/topology", """
                {"regions":[{"id":"cn"},{"id":"CN!"},{"id":"cn"},{"id":"us","capacity":-5}],
                 "fallback":{"us":["eu","us"]},"center":"mars"}""", before);

        assertThat(res.status()).isEqualTo(422);
        JsonNode problem = res.json();
        assertThat(problem.path("type").asText()).isEqualTo("urn:unitas:problem:invalid-document");
        assertThat(problem.path("status").asInt()).isEqualTo(422);
        assertThat(problem.path("problems").findValuesAsText("path")).containsExactly(
                "regions[1].id", "regions[2].id", "regions[3].capacity", "fallback.us[0]", "fallback.us[1]",
                "center");
        assertThat(problem.path("problems").get(2).path("message").asText())
                .isEqualTo("-5 (expected: >= 0)");
        assertThat(revision()).isEqualTo(before);
    }

    @Test
    void invalidRules_areRejectedWithPathsAndLines_againstTheCurrentTopology() {
        String yaml = """
                units:
                  - {id: u-sh, region: cn}
                  - {id: u-x, region: mars}
                key:
                  sources: [{header: x-user-id}]
                  transform: mod 100
                ranges:
                  - {range: 0~59, unit: u-sh}
                  - {range: 50~99, unit: u-x}
                """;
        ControlResponse res = operator.send("PUT", "/api/v1/rules", yaml, Map.of("If-Match", "" + revision(),
                                                                              "Content-Type", "application/yaml"));

        assertThat(res.status()).isEqualTo(422);
        assertThat(res.json().path("problems").findValuesAsText("path")).contains("units[1].region", "ranges[1]");
        assertThat(res.json().path("errors").get(0).asText()).startsWith("rules.yaml:3: units[1].region: ");
    }

    @Test
    void aStaleRevision_is412_andTheChangeIsNotApplied() {
        long read = revision();
        assertThat(operator.put("/api/v1/rules", RULES, read).status()).isEqualTo(200);

        ControlResponse stale = admin.put("/api/v1/topology", "{\"regions\":[\"cn\"]}", read);

        assertThat(stale.status()).isEqualTo(412);
        assertThat(stale.json().path("type").asText()).isEqualTo("urn:unitas:problem:stale-revision");
        assertThat(stale.json().path("detail").asText()).isEqualTo("If-Match: revision " + read + " is stale (current: " + (read + 1) + ")");
        assertThat(admin.get("/api/v1/state").json().path("topology").path("regions")).hasSize(3);
    }

    @Test
    void replacingWithoutIfMatch_is428() {
        ControlResponse res = admin.send("PUT", "/api/v1/topology", TOPOLOGY, Map.of());

        assertThat(res.status()).isEqualTo(428);
    }

    @ParameterizedTest(name = "{0} {1} as {2} -> {3}")
    @CsvSource({
            "GET,  /api/v1/state,     none,     401",
            "GET,  /api/v1/state,     bogus,    401",
            "GET,  /api/v1/state,     viewer,   200",
            "PUT,  /api/v1/topology,  viewer,   403",
            "PUT,  /api/v1/topology,  operator, 403",
            "PUT,  /api/v1/topology,  admin,    200",
            "PUT,  /api/v1/rules,     reporter, 403",
            "POST, /api/v1/fences,    viewer,   403",
            "PUT,  /api/v1/health/cn, viewer,   403",
            "GET,  /api/v1/audit,     viewer,   200",
    })
    void rolesDecideWhoMayDoWhat(String method, String path, String who, int status) {
        String token = switch (who) {
            case "none" -> null;
            case "bogus" -> "utk_not-a-real-token";
            case "viewer" -> Fixtures.VIEWER.secret();
            case "reporter" -> Fixtures.REPORTER.secret();
            case "operator" -> Fixtures.OPERATOR.secret();
            default -> Fixtures.ADMIN.secret();
        };
        String body = method.equals("GET") ? null : path.endsWith("topology") ? TOPOLOGY : "{}";
        ControlResponse res = RawClient.of(server.uri(), token).send(method, path, body,
                                                                           Map.of("If-Match", "" + revision()));

        assertThat(res.status()).isEqualTo(status);
        if (status >= 400) {
            assertThat(res.json().path("type").asText()).isEqualTo(
                    status == 401 ? "urn:unitas:problem:unauthenticated" : "urn:unitas:problem:forbidden");
        }
    }

    @Test
    void everyRefusalAndChangeIsAudited_andNoSecretIsStoredOrLogged() throws Exception {
        JsonNode all = admin.get("/api/v1/audit").json().path("entries");
        long after = all.get(all.size() - 1).path("seq").asLong();
        long read = revision();
        RawClient.of(server.uri(), null).get("/api/v1/state");
        RawClient.of(server.uri(), Fixtures.VIEWER.secret()).put("/api/v1/topology", TOPOLOGY, read);
        admin.send("PUT", "/api/v1/topology", TOPOLOGY, Map.of("If-Match", "" + read, "X-Unitas-Reason", "again"));

        JsonNode entries = admin.get("/api/v1/audit?after=" + after).json().path("entries");

        assertThat(entries).extracting(e -> e.path("actor").asText() + " " + e.path("action").asText() + " "
                                            + e.path("outcome").asText())
                           .containsExactly("anonymous state.read unauthenticated",
                                            "watcher topology.replace forbidden",
                                            "root topology.replace ok");
        assertThat(entries.get(2).path("reason").asText()).isEqualTo("again");
        assertThat(entries.get(2).path("revision").asLong()).isEqualTo(read + 1);
        for (Path file : Files.walk(dir).filter(Files::isRegularFile).toList()) { // the stores' files are binary
            String text = new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.ISO_8859_1);
            for (ControlToken t : new ControlToken[] {Fixtures.ADMIN, Fixtures.VIEWER}) {
                assertThat(text).as(file.toString()).doesNotContain(t.secret());
            }
        }
    }

    @Test
    void aHealthReportOlderThanTheLastOne_isRefused() {
        ControlResponse res = admin.send("PUT", "/api/v1/health/cn",
                                         Fixtures.report("cn", 1, T0.minusSeconds(1), false, 0), Map.of());

        assertThat(res.status()).isEqualTo(409);
        assertThat(admin.send("PUT", "/api/v1/health/mars", Fixtures.report("mars", 1, T0, true, 0), Map.of())
                        .status()).isEqualTo(404);
        assertThat(admin.send("PUT", "/api/v1/health/cn", Fixtures.report("cn", 9, T0, true, 0)
                                                               .replace(T0.toString(), "soon"), Map.of()).json()
                        .path("problems").findValuesAsText("path")).containsExactly("observed_at");
        assertThat(admin.send("PUT", "/api/v1/health/cn", Fixtures.report("eu", 9, T0, true, 0), Map.of())
                        .json().path("problems").findValuesAsText("path")).containsExactly("region");
    }

    @Test
    void fences_areAddedAndLifted_byOperators() {
        ControlResponse added = operator.post("/api/v1/fences", "{\"units\":[\"u-sh\"],\"reason\":\"db repair\"}");
        assertThat(added.status()).isEqualTo(200);
        JsonNode fence = admin.get("/api/v1/state").json().path("fences").path("u-sh");
        assertThat(fence.path("reason").asText()).isEqualTo("db repair");
        assertThat(operator.post("/api/v1/fences", "{\"units\":[\"u-nope\"]}").json().path("problems")
                           .get(0).path("path").asText()).isEqualTo("units[0]");

        assertThat(operator.send("DELETE", "/api/v1/fences/u-sh", null, Map.of()).status()).isEqualTo(200);
        assertThat(admin.get("/api/v1/state").json().path("fences").size()).isZero();
        assertThat(operator.send("DELETE", "/api/v1/fences/u-sh", null, Map.of()).status()).isEqualTo(404);
    }

    @Test
    void anOperatorsFence_saysHowLongRefusedWritesShouldWait_andANonsenseWaitIsRefusedWithNothingFenced() {
        assertThat(operator.post("/api/v1/fences", "{\"units\":[\"u-sh\"],\"retry_after\":\"30s\"}").status())
                .isEqualTo(200);
        assertThat(admin.get("/api/v1/state").json().path("fences").path("u-sh").path("retry_after").asText())
                .isEqualTo("30s");
        assertThat(operator.post("/api/v1/fences", "{\"units\":[\"u-ny\"]}").status()).isEqualTo(200);
        assertThat(admin.get("/api/v1/state").json().path("fences").path("u-ny").path("retry_after").asText())
                .isEqualTo("5s");

        // a duration too short for a fence is an invalid fence; what is no duration at all is a malformed request
        for (String wait : new String[] {"\"500ms\"", "\"soon\"", "\"-3s\"", "30"}) {
            ControlResponse refused = operator.post("/api/v1/fences",
                                                    "{\"units\":[\"u-xx\"],\"retry_after\":" + wait + "}");
            assertThat(refused.status()).as(wait).isEqualTo(wait.equals("\"500ms\"") ? 422 : 400);
            assertThat(refused.json().path("problems").get(0).path("path").asText()).isEqualTo("retry_after");
        }
        assertThat(admin.get("/api/v1/state").json().path("fences").size()).isEqualTo(2);
    }

    @Test
    void theOpenApiDocumentAndTheConsoleAreServed() {
        RawClient anyone = RawClient.of(server.uri(), null);

        assertThat(anyone.get("/api/v1/openapi.json").json().path("openapi").asText()).startsWith("3.");
        assertThat(anyone.get("/").body()).contains("unitas control");
    }

    @Test
    void theTokenInTheQuery_isAcceptedByTheWatchOnly() throws Exception {
        String viewer = java.net.URLEncoder.encode(Fixtures.VIEWER.secret(), java.nio.charset.StandardCharsets.UTF_8);

        ControlResponse state = RawClient.of(server.uri(), null).get("/api/v1/state?access_token=" + viewer);

        assertThat(state.status()).isEqualTo(401);
        assertThat(status("/api/v1/watch?access_token=" + viewer, Map.of())).isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "/api/v1/audit?limit=-5       | limit: -5 (expected: 1..10000)",
            "/api/v1/audit?limit=ten      | limit: 'ten' (expected: 1..10000)",
            "/api/v1/audit?after=-1       | after: -1 (expected: a sequence number >= 0)",
    })
    void aBadQueryParameter_is400NamingIt(String path, String detail) {
        ControlResponse res = admin.get(path);

        assertThat(res.status()).isEqualTo(400);
        assertThat(res.json().path("detail").asText()).isEqualTo(detail);
    }

    @Test
    void anOversizedLastEventId_is400() throws Exception {
        assertThat(status("/api/v1/watch", Map.of("Last-Event-ID", "9".repeat(40)))).isEqualTo(400);
    }

    @Test
    void aNumberOutOfRangeInAReport_isAClientMistake() {
        ControlResponse res = admin.send("PUT", "/api/v1/health/cn", Fixtures.report("cn", 99, T0.plusSeconds(1),
                true, 0).replace("\"replication_lag_ms\":0", "\"replication_lag_ms\":1e400"), Map.of());

        assertThat(res.status()).as(res.body()).isEqualTo(400);
        assertThat(res.json().path("detail").asText()).contains("replication_lag_ms");
    }

    @Test
    void theConsole_forbidsFramingScriptsFromElsewhereAndSniffing() throws Exception {
        java.net.http.HttpResponse<String> res = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(server.uri().resolve("/")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());

        assertThat(res.headers().firstValue("content-security-policy").orElse(""))
                .contains("default-src 'self'").contains("frame-ancestors 'none'");
        assertThat(res.headers().firstValue("x-frame-options")).hasValue("DENY");
        assertThat(res.headers().firstValue("x-content-type-options")).hasValue("nosniff");
    }

    /** The status of a GET as a viewer, read from the headers only (the watch never ends). */
    private int status(String path, Map<String, String> headers) throws Exception {
        java.net.http.HttpRequest.Builder req = java.net.http.HttpRequest.newBuilder(server.uri().resolve(path))
                .header("Authorization", "Bearer " + Fixtures.VIEWER.secret());
        headers.forEach(req::header);
        if (path.contains("access_token")) {
            req = java.net.http.HttpRequest.newBuilder(server.uri().resolve(path));
        }
        java.net.http.HttpResponse<java.io.InputStream> res = java.net.http.HttpClient.newHttpClient().send(
                req.build(), java.net.http.HttpResponse.BodyHandlers.ofInputStream());
        res.body().close();
        return res.statusCode();
    }
}
