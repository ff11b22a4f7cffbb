package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.control.client.ControlClient;
import io.unitas.testkit.MutableClock;

/**
 * The OpenAPI document is the API's contract: every route the server serves under {@code /api/} is in it, and
 * every route it documents answers (not with the router's 404 or 405).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenApiContractTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");

    /** A value per path parameter that names something that exists once seeded. */
    private static final Map<String, String> SAMPLES = Map.of("region", "cn", "unit", "u-sh", "id", "sw-1");

    @TempDir
    static Path dir;

    private ControlServer server;
    private JsonNode openapi;

    @BeforeAll
    void start() {
        server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir))
                              .clock(new MutableClock(T0)).start();
        ControlClient admin = ControlClient.of(server.uri(), Fixtures.ADMIN.secret());
        Fixtures.seed(admin, T0, 50);
        openapi = ControlClient.of(server.uri(), null).get("/api/v1/openapi.json").json();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private SortedSet<String> documented() {
        SortedSet<String> routes = new TreeSet<>();
        openapi.path("paths").properties().forEach(path -> path.getValue().fieldNames().forEachRemaining(
                method -> routes.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey())));
        return routes;
    }

    @Test
    void everyServedApiRoute_isDocumented() {
        SortedSet<String> served = new TreeSet<>();
        ((DefaultControlServer) server).routes().stream().filter(r -> r.contains(" /api/")).forEach(served::add);

        assertThat(served).isNotEmpty();
        assertThat(documented()).containsAll(served);
    }

    @Test
    void everyDocumentedRoute_answers() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        for (String route : documented()) {
            String method = route.substring(0, route.indexOf(' '));
            String path = route.substring(route.indexOf(' ') + 1);
            for (Map.Entry<String, String> p : SAMPLES.entrySet()) {
                path = path.replace("{" + p.getKey() + "}", p.getValue());
            }
            HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(server.uri() + path))
                    .header("Authorization", "Bearer " + Fixtures.ADMIN.secret()).header("If-Match", "\"0\"")
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30));
            req.method(method, method.equals("GET") || method.equals("DELETE") ? HttpRequest.BodyPublishers.noBody()
                                                                               : HttpRequest.BodyPublishers.ofString("{}"));
            HttpResponse<InputStream> res = http.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = res.body()) {
                String type = res.headers().firstValue("content-type").orElse("");
                String text = type.contains("event-stream") ? "" : new String(body.readAllBytes());
                assertThat(res.statusCode()).as(route + ": " + text).isNotEqualTo(405);
                if (res.statusCode() == 404) {
                    // only the resource may be missing, never the route: the problem names the sample it looked for
                    assertThat(type).as(route).startsWith("application/problem+json");
                    assertThat(text).as(route).containsAnyOf(SAMPLES.values().stream().map(v -> "'" + v + "'")
                                                                     .toArray(String[]::new));
                }
            }
        }
    }

    /**
     * A client that guesses tokens is answered 429 {@code too-many-guesses} on every route that asks for one, and a
     * token past its watches 429 {@code too-many-watches}: the document says so where a client generated from it
     * would otherwise meet an undocumented status.
     */
    @Test
    void everyRouteThatAsksForAToken_documents429WithRetryAfter() {
        List<String> missing = new ArrayList<>();
        openapi.path("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
            JsonNode responses = op.getValue().path("responses");
            if (responses.has("401") && !responses.has("429")) {
                missing.add(op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + path.getKey());
            }
        }));
        assertThat(missing).as("routes answering 401 without a documented 429").isEmpty();
        JsonNode tooMany = openapi.path("components").path("responses").path("TooManyRequests");
        assertThat(tooMany.path("headers").has("Retry-After")).isTrue();
        assertThat(tooMany.path("description").asText()).contains("too-many-guesses").contains("too-many-watches");
    }
}
