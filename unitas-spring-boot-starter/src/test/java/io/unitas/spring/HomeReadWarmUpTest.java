package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.unitas.core.Region;
import io.unitas.data.remote.HomeReadServer;
import io.unitas.data.remote.StoredEntity;
import io.unitas.spring.readiness.AccountsApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A home read's one timeout ({@code unitas.readiness.home-reads.timeout}, 1s here) against a real home-read server of
 * cn that is far away: opening a connection to it takes 1.5s, longer than the timeout. The starter connects at start,
 * so the first read after the start is served all the same; a home that stops answering is {@code data-not-ready},
 * and the answer names the timeout's property.
 */
@SpringBootTest(classes = AccountsApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
                properties = {"unitas.readiness.home-reads.token=secret-w",
                              "unitas.readiness.home-reads.timeout=1s"})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HomeReadWarmUpTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static HomeReadServer cn;
    private static SlowConnectProxy far;

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void farHome(DynamicPropertyRegistry registry) throws Exception {
        cn = HomeReadServer.builder().region(Region.of("cn")).owns("u-cn"::equals).token("secret-w")
                .reader("account", (unit, holder) -> Optional.of(new StoredEntity(
                        1, ("cn user " + holder).getBytes(StandardCharsets.UTF_8), Instant.now())))
                .start();
        far = new SlowConnectProxy(cn.uri(), Duration.ofMillis(1500));
        registry.add("unitas.readiness.home-reads.endpoints.cn", () -> far.uri().toString());
    }

    @AfterAll
    static void stop() throws Exception {
        far.close();
        cn.close();
    }

    private HttpResponse<String> account(String holder) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/accounts/" + holder))
                                    .timeout(Duration.ofSeconds(30)).build(),
                         HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @Order(1)
    void theFirstHomeReadAfterStart_isServed_thoughConnectingTakesLongerThanTheTimeout() throws Exception {
        HttpResponse<String> r = account("10");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"name\":\"cn user 10\"", "\"from\":\"HOME\"");
    }

    @Test
    @Order(2)
    void aHomeThatStopsAnswering_isDataNotReady_andTheAnswerNamesTheTimeout() throws Exception {
        far.freeze();
        HttpResponse<String> r = account("11");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
        assertThat(r.body()).contains("data-not-ready", "no answer within the deadline of 1000 ms"
                                                        + " (unitas.readiness.home-reads.timeout)");
    }
}
