package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.spring.follow.FollowingApp;
import io.unitas.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The contract of a followed routing state, run on every stack the starter supports (a subclass per Spring Boot
 * line, each with its own class path): a running service follows its routing state, so a fence set in a real control
 * plane (or written to a followed fences file) makes the service itself refuse that unit's writes with the gateway's
 * problem and {@code Retry-After}, and lifting it lets them through, without a restart. It uses only what every Boot
 * line has: {@link SpringApplicationBuilder} and the {@code local.server.port} property.
 */
abstract class FollowedStateContract {

    private static final ControlToken ADMIN = ControlToken.generate("root", Role.ADMIN);
    private static final ControlToken SERVICE = ControlToken.generate("orders-eu", Role.VIEWER);
    private static final String TOPOLOGY = "{\"regions\":[{\"id\":\"cn\"},{\"id\":\"eu\"},{\"id\":\"us\"}],"
                                           + "\"center\":\"cn\"}";
    private static final String RULES = """
            {"units":[{"id":"u-cn","region":"cn"},{"id":"u-eu","region":"eu"},{"id":"u-us","region":"us"}],
             "key":{"sources":[{"header":"x-user-id"}],"transform":"mod 100"},
             "ranges":[{"range":"0~32","unit":"u-cn"},{"range":"33~65","unit":"u-eu"},
                       {"range":"66~99","unit":"u-us"}]}""";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    private ControlServer control;
    private ConfigurableApplicationContext service;
    private long sequence;

    @AfterEach
    void stop() {
        if (service != null) {
            service.close();
        }
        if (control != null) {
            control.close();
        }
    }

    @Test
    void aFenceSetInTheControlPlane_refusesTheUnitsWritesInTheService_untilLifted() throws Exception {
        Files.writeString(dir.resolve("tokens"), ADMIN.fileLine() + "\n" + SERVICE.fileLine() + "\n");
        control = ControlServer.builder().port(0).dataDir(dir.resolve("control-data")).tokens(dir.resolve("tokens"))
                               .healthFreshness(Duration.ofHours(1), Duration.ofHours(1)).start();
        RawClient admin = RawClient.of(URI.create("http://127.0.0.1:" + control.port()), ADMIN.secret());
        ok(admin.put("/api/v1/topology", TOPOLOGY, admin.get("/api/v1/state").revision()));
        ok(admin.put("/api/v1/rules", RULES, admin.get("/api/v1/state").revision()));
        for (String region : new String[] {"cn", "eu", "us"}) {
            report(admin, region);
        }
        service = start("--unitas.control-plane.url=http://127.0.0.1:" + control.port(),
                        "--unitas.control-plane.token=" + SERVICE.secret(),
                        "--unitas.control-plane.state-file=" + dir.resolve("state/last-good.json"));
        long before = admin.get("/api/v1/state").revision();
        FollowedRoutingState state = (FollowedRoutingState) service.getBean(UnitasRoutingState.class);
        Await.until("the service follows the control plane's revision " + before, WAIT,
                    () -> state.revision() >= before);
        assertThat(order("70").statusCode()).isEqualTo(200);

        ok(admin.post("/api/v1/fences", "{\"units\":[\"u-us\"],\"reason\":\"switchover drill\"}"));
        long fenced = admin.get("/api/v1/state").revision();
        Await.until("the fence reaches the service", WAIT, () -> state.revision() >= fenced);
        HttpResponse<String> refused = order("70");
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(refused.body()).contains("urn:unitas:problem:write-fenced", "u-us");
        assertThat(order("10").statusCode()).as("another unit's writes").isEqualTo(200);
        assertThat(dir.resolve("state/last-good.json")).exists();

        ok(admin.send("DELETE", "/api/v1/fences/u-us", null, Map.of()));
        long lifted = admin.get("/api/v1/state").revision();
        Await.until("the lifted fence reaches the service", WAIT, () -> state.revision() >= lifted);
        assertThat(order("70").statusCode()).isEqualTo(200);
    }

    @Test
    void aFenceInAFollowedFencesFile_refusesTheUnitsWrites_untilRemoved() throws Exception {
        for (String file : new String[] {"topology.yaml", "rules.yaml", "health.json"}) {
            Files.copy(Path.of("src/test/resources/unitas", file), dir.resolve(file));
        }
        Path fences = dir.resolve("fences.json");
        Files.writeString(fences, "{}");
        service = start("--unitas.topology=file:" + dir.resolve("topology.yaml"),
                        "--unitas.rules=file:" + dir.resolve("rules.yaml"),
                        "--unitas.health=file:" + dir.resolve("health.json"),
                        "--unitas.fences=file:" + fences, "--unitas.reload-interval=50ms");
        FollowedRoutingState state = (FollowedRoutingState) service.getBean(UnitasRoutingState.class);
        long first = state.revision();
        assertThat(order("70").statusCode()).isEqualTo(200);

        Files.writeString(fences, "{\"u-us\": {\"retry_after\": \"7s\"}}");
        Await.until("the fences file is reloaded", WAIT, () -> state.revision() > first);
        HttpResponse<String> refused = order("70");
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).contains("7");

        long fencedRevision = state.revision();
        Files.writeString(fences, "{ }");
        Await.until("the emptied fences file is reloaded", WAIT, () -> state.revision() > fencedRevision);
        assertThat(order("70").statusCode()).isEqualTo(200);
    }

    private ConfigurableApplicationContext start(String... args) {
        // writes of every unit in this one region: the fences are under test here, not the write guard
        String[] all = new String[args.length + 2];
        all[0] = "--server.port=0";
        all[1] = "--unitas.write-guard.mode=allow";
        System.arraycopy(args, 0, all, 2, args.length);
        return new SpringApplicationBuilder(FollowingApp.class).run(all);
    }

    private HttpResponse<String> order(String user) throws IOException, InterruptedException {
        String port = service.getEnvironment().getProperty("local.server.port");
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                                    .header("x-user-id", user).POST(HttpRequest.BodyPublishers.noBody()).build(),
                         HttpResponse.BodyHandlers.ofString());
    }

    private void report(RawClient admin, String region) {
        ok(admin.send("PUT", "/api/v1/health/" + region, "{\"region\":\"" + region + "\",\"sequence\":"
                + ++sequence + ",\"observed_at\":\"" + Instant.now() + "\",\"healthy\":true,\"writable\":true,"
                + "\"replication_lag_ms\":0,\"score\":1,\"reasons\":[],\"checks\":{}}", Map.of()));
    }

    private static void ok(ControlResponse res) {
        assertThat(res.status()).as(res.body()).isEqualTo(200);
    }
}
