package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import io.unitas.spring.app.MutableRoutingState;
import io.unitas.spring.app.PaymentLedger;
import io.unitas.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;

/**
 * A contract run on every stack the starter supports, Servlet and WebFlux on each Spring Boot line: each subclass
 * starts its stack's application ({@code @SpringBootTest} with {@link #PATHS} and {@link #RETRY_AFTER}) on its line's
 * class path. {@link Idempotent} on a controller method and {@code unitas.idempotency.paths}, backed by the data
 * layer's idempotency with the records in the user's home unit's store: a replay returns the stored response without
 * running the method again, the data layer's 422, 409 and 503 problems reach the caller, and the handler sees the
 * request's unit.
 */
abstract class IdempotentContract {

    static final String PATHS = "unitas.idempotency.paths=/transfers/**";
    static final String RETRY_AFTER = "unitas.idempotency.retry-after=2s";

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String EU_USER = "40";
    private static final String CN_USER = "10";
    /** Another user of eu's unit u-eu. */
    private static final String EU_NEIGHBOUR = "41";

    // the property, not @LocalServerPort, whose package differs between Boot lines
    @Value("${local.server.port}")
    int port;

    @Autowired
    MutableRoutingState state;

    @Autowired
    PaymentLedger payments;

    @AfterEach
    void release() {
        payments.hold.get().countDown();
    }

    @Test
    void aRetryWithTheSameKey_getsTheStoredResponse_andTheMethodRunsOnce() throws Exception {
        HttpResponse<String> first = post("/payments", EU_USER, "k-replay", "{\"amount\": 5}");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).contains("\"unit\":\"u-eu\"");
        int made = payments.made.get();

        HttpResponse<String> replay = post("/payments", EU_USER, "k-replay", "{\"amount\": 5}");
        assertThat(replay.statusCode()).isEqualTo(200);
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(payments.made.get()).isEqualTo(made);
    }

    @Test
    void theSameKeyFromAnotherUserOfTheSameUnit_is422_neverTheFirstUsersAnswer() throws Exception {
        HttpResponse<String> first = post("/payments", EU_USER, "k-shared", "{\"amount\": 5}");
        assertThat(first.statusCode()).isEqualTo(200);
        int made = payments.made.get();

        HttpResponse<String> other = post("/payments", EU_NEIGHBOUR, "k-shared", "{\"amount\": 5}");
        assertThat(other.statusCode()).as(other.body()).isEqualTo(422);
        assertThat(other.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(other.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(other.body()).contains("idempotency-key-reused").doesNotContain("\"payment\"");
        assertThat(payments.made.get()).isEqualTo(made);
    }

    @Test
    void aReplay_carriesTheStoredContentTypeAndTheListedHeaders() throws Exception {
        HttpResponse<String> first = post("/payments/created", EU_USER, "k-created", "{\"amount\": 7}");
        assertThat(first.statusCode()).isEqualTo(201);

        HttpResponse<String> replay = post("/payments/created", EU_USER, "k-created", "{\"amount\": 7}");
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertThat(replay.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"))
                .isPresent();
        assertThat(replay.headers().firstValue("ETag")).contains("\"v1\"");
        assertThat(replay.headers().firstValue("X-Internal-Trace")).isEmpty();
    }

    @Test
    void anOwnerFromThePath_ownsTheKey_whateverTheRoutingHeaderSays() throws Exception {
        HttpResponse<String> first = post("/wallets/41/deposits", EU_USER, "k-wallet", "{\"amount\": 5}");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        HttpResponse<String> replay = post("/wallets/41/deposits", EU_USER, "k-wallet", "{\"amount\": 5}");
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(replay.body()).isEqualTo(first.body());

        HttpResponse<String> otherOwner = post("/wallets/42/deposits", EU_USER, "k-wallet", "{\"amount\": 5}");
        assertThat(otherOwner.statusCode()).as(otherOwner.body()).isEqualTo(422);
    }

    @Test
    void theSameKeyWithAnotherBody_is422() throws Exception {
        assertThat(post("/payments", EU_USER, "k-reused", "{\"amount\": 5}").statusCode()).isEqualTo(200);
        HttpResponse<String> reused = post("/payments", EU_USER, "k-reused", "{\"amount\": 6}");
        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(reused.body()).contains("idempotency-key-reused");
    }

    @Test
    void aDuplicateWhileTheFirstRuns_is409WithRetryAfter() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        payments.hold.set(hold);
        int entered = payments.entered.get();
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> {
            try {
                return post("/payments", EU_USER, "k-flight", "{\"amount\": 5}");
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Await.until("the first request runs", Duration.ofSeconds(10), () -> payments.entered.get() > entered);

        HttpResponse<String> duplicate = post("/payments", EU_USER, "k-flight", "{\"amount\": 5}");
        assertThat(duplicate.statusCode()).isEqualTo(409);
        assertThat(duplicate.headers().firstValue("Retry-After")).contains("2");
        assertThat(duplicate.body()).contains("idempotency-key-in-flight");

        hold.countDown();
        assertThat(first.get().statusCode()).isEqualTo(200);
    }

    @Test
    void aNewKeyOfAUserWhoseHomeStoreCannotBeReached_is503() throws Exception {
        state.down("cn"); // cn's writes fail over to eu, which cannot reach cn's records
        HttpResponse<String> notReady;
        try {
            notReady = post("/payments", CN_USER, "k-cn", "{\"amount\": 5}");
        } finally {
            state.down(null);
        }
        assertThat(notReady.statusCode()).isEqualTo(503);
        assertThat(notReady.body()).contains("data-not-ready");
        assertThat(notReady.headers().firstValue("Retry-After")).contains("2");
    }

    @Test
    void aConfiguredPath_isIdempotentWithoutTheAnnotation_andAWriteWithoutAKeyPassesAsItIs() throws Exception {
        HttpResponse<String> first = post("/transfers/t1", EU_USER, "k-transfer", "");
        HttpResponse<String> replay = post("/transfers/t1", EU_USER, "k-transfer", "");
        assertThat(replay.body()).isEqualTo(first.body());

        HttpResponse<String> noKey = post("/transfers/t1", EU_USER, null, "");
        assertThat(noKey.statusCode()).isEqualTo(200);
        assertThat(noKey.body()).isNotEqualTo(first.body());
    }

    private HttpResponse<String> post(String path, String user, String key, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                           .header("x-user-id", user).header("Content-Type", "application/json")
                                           .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
