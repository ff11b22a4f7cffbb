package io.unitas.spring.boot4reactive;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import io.unitas.core.fence.FencePolicy;
import io.unitas.spring.boot4.MutableRoutingState;
import io.unitas.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The starter in a Spring Boot 4.0 WebFlux service on Reactor Netty: the context rides the Reactor context into an
 * operator on another scheduler and out on {@code WebClient}; fenced writes are refused; {@code @Idempotent} replays,
 * and answers 422, 409 with {@code Retry-After} and 503 as on Boot 3.5.
 */
@SpringBootTest(classes = Boot4ReactiveApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
                properties = {"spring.main.web-application-type=reactive", "unitas.idempotency.enabled=true",
                              "unitas.idempotency.retry-after=2s"})
class Boot4WebFluxTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String EU_USER = "40";
    private static final String CN_USER = "10";

    @Value("${local.server.port}")
    int port;

    @Autowired
    MutableRoutingState state;

    @Autowired
    Boot4ReactiveApp.Endpoints endpoints;

    @AfterEach
    void reset() {
        state.fence(null, null);
        endpoints.hold.get().countDown();
    }

    private HttpResponse<String> send(String method, String path, String body, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                                             : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(60));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> pay(String user, String key, String body) throws IOException, InterruptedException {
        return send("POST", "/payments", body, "x-user-id", user, "Idempotency-Key", key,
                    "Content-Type", "application/json");
    }

    @Test
    void theStamp_travelsOnAWebClientCallFromAnotherScheduler() throws Exception {
        HttpResponse<String> r = send("GET", "/call", null, "x-unitas-unit", "u-us", "x-unitas-region", "us",
                                      "x-unitas-origin", "cn", "x-unitas-hops", "2");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        // the stamp leaves naming the region that served (this one)
        assertThat(r.body()).contains("\"x-unitas-unit\":\"u-us\"", "\"x-unitas-region\":\"eu\"",
                                      "\"x-unitas-origin\":\"cn\"", "\"x-unitas-hops\":\"2\"",
                                      "\"context.unit\":\"u-us\"");
    }

    @Test
    void aFencedUnitsWrite_is503WithRetryAfter_andReadsPass() throws Exception {
        state.fence("u-us", FencePolicy.reject(Duration.ofSeconds(7)));
        HttpResponse<String> write = send("POST", "/orders", null, "x-unitas-unit", "u-us");
        assertThat(write.statusCode()).isEqualTo(503);
        assertThat(write.headers().firstValue("Retry-After")).contains("7");
        assertThat(write.body()).contains("urn:unitas:problem:write-fenced");
        assertThat(send("GET", "/echo", null, "x-unitas-unit", "u-us").statusCode()).isEqualTo(200);
        assertThat(send("POST", "/orders", null, "x-unitas-unit", "u-eu").body()).isEqualTo("u-eu");
    }

    @Test
    void idempotent_aRetryReplays_andAnotherBodyIs422() throws Exception {
        HttpResponse<String> first = pay(EU_USER, "k-replay", "{\"amount\": 5}");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(first.body()).contains("\"unit\":\"u-eu\"");
        int made = endpoints.made.get();

        HttpResponse<String> replay = pay(EU_USER, "k-replay", "{\"amount\": 5}");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(endpoints.made.get()).isEqualTo(made);

        HttpResponse<String> reused = pay(EU_USER, "k-replay", "{\"amount\": 6}");
        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.body()).contains("idempotency-key-reused");
    }

    @Test
    void idempotent_aDuplicateInFlightIs409_andAnUnreachableHomeStoreIs503() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        endpoints.hold.set(hold);
        int entered = endpoints.entered.get();
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> {
            try {
                return pay(EU_USER, "k-flight", "{\"amount\": 5}");
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Await.until("the first request runs", Duration.ofSeconds(60), () -> endpoints.entered.get() > entered);
        HttpResponse<String> duplicate = pay(EU_USER, "k-flight", "{\"amount\": 5}");
        assertThat(duplicate.statusCode()).isEqualTo(409);
        assertThat(duplicate.headers().firstValue("Retry-After")).contains("2");
        hold.countDown();
        assertThat(first.get().statusCode()).isEqualTo(200);

        state.down("cn"); // cn's writes fail over to eu, which cannot reach cn's records
        HttpResponse<String> notReady;
        try {
            notReady = pay(CN_USER, "k-cn", "{\"amount\": 5}");
        } finally {
            state.down(null);
        }
        assertThat(notReady.statusCode()).isEqualTo(503);
        assertThat(notReady.body()).contains("data-not-ready");
    }
}
