package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.unitas.config.ProblemJson;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.testkit.Fuzz;
import io.unitas.testkit.MutableClock;

/**
 * Every API route that reads a body, fed bodies it did not expect, through the real server: the answer is never a
 * 5xx, every refusal is an RFC 9457 problem, and the control plane keeps serving. {@code verify} sends
 * {@value #TRIES} mutations of a valid body to each route; a coverage-guided run of one:
 * {@code JAZZER_FUZZ=1 mvn -pl unitas-control -am verify -Dtest=ApiBodiesFuzzTest#fuzzBodies
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class ApiBodiesFuzzTest {

    private static final int TRIES = 150;
    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** A route that reads a body, with a valid body to mutate. */
    private enum Route {
        TOPOLOGY("PUT", "/api/v1/topology", Fixtures.TOPOLOGY),
        RULES("PUT", "/api/v1/rules", Fixtures.RULES),
        HEALTH("PUT", "/api/v1/health/eu", Fixtures.report("eu", 1, T0, true, 50)),
        FENCE("POST", "/api/v1/fences", "{\"unit\":\"u-sh\",\"policy\":\"reject\",\"reason\":\"drill\"}"),
        SWITCHOVER("POST", "/api/v1/switchovers", "{\"units\":[\"u-sh\"],\"target\":\"eu\",\"max_lag_ms\":200,"
                                                  + "\"dry_run\":true,\"reason\":\"fuzz\"}");

        final String method;
        final String path;
        final byte[] seed;

        Route(String method, String path, String seed) {
            this.method = method;
            this.path = path;
            this.seed = seed.getBytes(StandardCharsets.UTF_8);
        }
    }

    @TempDir
    static Path dir;
    private static ControlServer server;
    private static RawClient admin;

    @BeforeAll
    static void start() {
        server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir))
                              .clock(new MutableClock(T0)).start();
        admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
        Fixtures.seed(admin, T0, 50);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** Sends {@code body} to {@code route} as the admin; the answer must be a success or a problem, never a 5xx. */
    static void send(Route route, byte[] body) {
        HttpResponse<byte[]> res;
        try {
            res = HTTP.send(HttpRequest.newBuilder(URI.create(server.uri() + route.path))
                                       .method(route.method, HttpRequest.BodyPublishers.ofByteArray(body))
                                       .header("authorization", "Bearer " + Fixtures.ADMIN.secret())
                                       .header("content-type", "application/json")
                                       .header("if-match", Long.toString(admin.get("/api/v1/state").revision()))
                                       .timeout(Duration.ofSeconds(30)).build(),
                            HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new AssertionError(route + ": the exchange failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        String text = new String(body, StandardCharsets.UTF_8);
        assertThat(res.statusCode()).as("%s %s with %s", route.method, route.path, text).isLessThan(500);
        if (res.statusCode() >= 400) {
            assertThat(res.headers().firstValue("content-type")).hasValue(ProblemJson.MEDIA_TYPE);
            assertThat(ProblemJson.decode(res.body(), res.statusCode(), Duration.ZERO).detail())
                    .as("the problem's detail for %s", text).isNotBlank();
        }
    }

    @Test
    void everyBodyReadingRoute_answersMutatedBodiesWithASuccessOrAProblem_andKeepsServing() {
        for (Route route : Route.values()) {
            Random random = new Random(route.ordinal());
            for (int i = 0; i < TRIES; i++) {
                send(route, Fuzz.mutate(route.seed, random));
            }
        }
        assertThat(admin.get("/api/v1/state").status()).isEqualTo(200);
    }

    @FuzzTest
    void fuzzBodies(byte[] in) {
        if (in.length > 0) {
            Route[] routes = Route.values();
            send(routes[Math.floorMod(in[0], routes.length)], java.util.Arrays.copyOfRange(in, 1, in.length));
        }
    }
}
