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
import io.unitas.control.client.internal.Operation;
import io.unitas.control.client.internal.RawClient;
import io.unitas.testkit.MutableClock;

/**
 * The OpenAPI document is the API's contract: every route the server serves under {@code /api/} is in it, every
 * route it documents answers (not with the router's 404 or 405) with a status it documents, and every operation the
 * client calls is documented under the same id, method and path.
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
        RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
        Fixtures.seed(admin, T0, 50);
        openapi = RawClient.of(server.uri(), null).get("/api/v1/openapi.json").json();
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
                assertThat(operation(route).path("responses").has(String.valueOf(res.statusCode())))
                        .as(route + " answered " + res.statusCode() + ", which it does not document: " + text).isTrue();
                if (res.statusCode() == 404) {
                    // only the resource may be missing, never the route: the problem names the sample it looked for
                    assertThat(type).as(route).startsWith("application/problem+json");
                    assertThat(text).as(route).containsAnyOf(SAMPLES.values().stream().map(v -> "'" + v + "'")
                                                                     .toArray(String[]::new));
                }
            }
        }
    }

    private JsonNode operation(String route) {
        String method = route.substring(0, route.indexOf(' ')).toLowerCase(Locale.ROOT);
        return openapi.path("paths").path(route.substring(route.indexOf(' ') + 1)).path(method);
    }

    @Test
    void everyRouteThatAsksForAToken_answersWithoutOne_401_asDocumented() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        for (String route : documented()) {
            JsonNode op = operation(route);
            if (op.path("security").isEmpty()) {
                continue; // public
            }
            String method = route.substring(0, route.indexOf(' '));
            String path = route.substring(route.indexOf(' ') + 1);
            for (Map.Entry<String, String> p : SAMPLES.entrySet()) {
                path = path.replace("{" + p.getKey() + "}", p.getValue());
            }
            HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(server.uri() + path))
                    .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(res.statusCode()).as(route).isEqualTo(401);
            assertThat(op.path("responses").has("401")).as(route).isTrue();
        }
    }

    @Test
    void thePublicDocument_documentsTheOneRefusalItCanMeet_headersTooLarge() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(server.uri() + "/api/v1/openapi.json"))
                .header("X-Padding", "x".repeat(64 * 1024)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(res.statusCode()).isEqualTo(431);
        assertThat(operation("GET /api/v1/openapi.json").path("responses").has("431")).isTrue();
    }

    @Test
    void everyOperation_hasAnId_itsSecurity_itsPathParameters_andItsRefusals() {
        List<String> wrong = new ArrayList<>();
        for (String route : documented()) {
            JsonNode op = operation(route);
            if (op.path("operationId").asText().isEmpty()) {
                wrong.add(route + ": no operationId");
            }
            if (!op.has("security")) {
                wrong.add(route + ": no security (expected: bearer, or [] when public)");
            }
            String path = route.substring(route.indexOf(' ') + 1);
            for (String segment : path.split("/")) {
                if (segment.startsWith("{")) {
                    String name = segment.substring(1, segment.length() - 1);
                    boolean declared = false;
                    for (JsonNode p : op.path("parameters")) {
                        declared |= p.path("in").asText().equals("path") && p.path("name").asText().equals(name);
                    }
                    if (!declared) {
                        wrong.add(route + ": path parameter " + name + " not declared");
                    }
                }
            }
            boolean refusal = false;
            for (java.util.Iterator<String> it = op.path("responses").fieldNames(); it.hasNext(); ) {
                refusal |= it.next().startsWith("4");
            }
            if (!refusal) {
                wrong.add(route + ": no 4xx answer listed");
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void everyOperationTheClientCalls_isDocumented_underItsIdMethodAndPath_andOnlyTheDocumentItselfIsNotCalled() {
        SortedSet<String> called = new TreeSet<>();
        for (Operation op : Operation.values()) {
            JsonNode documented = openapi.path("paths").path(op.template()).path(op.methodKey());
            assertThat(documented.isObject()).as(op + ": not in the document").isTrue();
            assertThat(documented.path("operationId").asText()).as(op.toString()).isEqualTo(op.id());
            called.add(op.method() + " " + op.template());
        }
        SortedSet<String> uncalled = new TreeSet<>(documented());
        uncalled.removeAll(called);
        assertThat(uncalled).containsExactly("GET /api/v1/openapi.json");
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
