package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.unitas.core.Region;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.remote.HomeReadServer;
import io.unitas.spring.readiness.AccountsApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * One timeout for a home read, {@code unitas.readiness.home-reads.timeout}, named in the answer that reports it; and
 * the connections to the other regions' home-read servers opened at start: us's real server sees the service before
 * any read, cn's, which accepts connections and never answers, costs one log line and not the start.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(classes = AccountsApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
                properties = {"unitas.readiness.home-reads.token=secret-t",
                              "unitas.readiness.home-reads.timeout=700ms"})
class HomeReadTimeoutTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    /** Whom us's server was asked about, counted: any call reaches it only after a connection is open. */
    private static final AtomicInteger US_ASKED = new AtomicInteger();

    private static ServerSocket silentCn;
    private static HomeReadServer us;

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void homes(DynamicPropertyRegistry registry) throws Exception {
        // the kernel completes the connections (backlog); nothing ever reads or answers them
        silentCn = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        us = HomeReadServer.builder().region(Region.of("us")).token("secret-t")
                .owns(unit -> US_ASKED.incrementAndGet() > 0 && unit.equals("u-us"))
                .idempotency(IdempotencyStore.embedded(Region.of("us"), Clock.systemUTC()))
                .start();
        registry.add("unitas.readiness.home-reads.endpoints.cn",
                     () -> "http://127.0.0.1:" + silentCn.getLocalPort());
        registry.add("unitas.readiness.home-reads.endpoints.us", () -> us.uri().toString());
    }

    @AfterAll
    static void stop() throws Exception {
        us.close();
        silentCn.close();
    }

    @Test
    void aHomeThatDoesNotAnswer_isNotReady_namingTheOneTimeoutByItsProperty() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                                                                            + "/accounts/10"))
                                                      .timeout(Duration.ofSeconds(60)).build(),
                                           HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
        assertThat(r.body()).contains("data-not-ready", "unitas.readiness.home-reads.timeout: 700ms");
    }

    @Test
    void theOtherRegionsServers_areConnectedAtStart_beforeAnyRead() {
        await("us's home-read server asked at start").atMost(Duration.ofSeconds(30))
                .until(() -> US_ASKED.get() > 0);
    }

    @Test
    void aWarmUpThatFails_costsOneLine_andNotTheStart(CapturedOutput output) {
        await("the warm-up's line about cn").atMost(Duration.ofSeconds(30))
                .until(() -> output.getAll().contains("home-read server of cn"));
        assertThat(output.getAll().lines().filter(l -> l.contains("home-read server of cn")))
                .singleElement().asString()
                .contains("5 attempts", "no answer within", "http://127.0.0.1:" + silentCn.getLocalPort(),
                          "unitas.readiness.home-reads.timeout: 700ms", "starting anyway");
    }
}
