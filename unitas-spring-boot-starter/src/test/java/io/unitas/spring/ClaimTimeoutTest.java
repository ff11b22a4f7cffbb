package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.unitas.spring.app.MutableRoutingState;
import io.unitas.spring.app.ServiceApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * An idempotency claim at a home that accepts connections and never answers ends at the one home-read timeout, and
 * the 503 names it by its property, as a home read's answer does ({@link HomeReadTimeoutTest}).
 */
@SpringBootTest(classes = ServiceApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
                properties = {"unitas.readiness.home-reads.token=secret-t",
                              "unitas.readiness.home-reads.timeout=700ms"})
class ClaimTimeoutTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static ServerSocket silentCn;

    @LocalServerPort
    int port;

    @Autowired
    MutableRoutingState state;

    @DynamicPropertySource
    static void homes(DynamicPropertyRegistry registry) throws Exception {
        silentCn = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        registry.add("unitas.readiness.home-reads.endpoints.cn",
                     () -> "http://127.0.0.1:" + silentCn.getLocalPort());
    }

    @AfterAll
    static void stop() throws Exception {
        silentCn.close();
    }

    @Test
    void aClaimAtAHomeThatDoesNotAnswer_is503_namingTheOneTimeoutByItsProperty() throws Exception {
        state.down("cn"); // cn's writes fail over to eu, whose claims still go to cn's records
        HttpResponse<String> r;
        try {
            r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/payments"))
                                     .header("x-user-id", "10").header("Idempotency-Key", "k-silent")
                                     .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
                                     .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 5}")).build(),
                          HttpResponse.BodyHandlers.ofString());
        } finally {
            state.down(null);
        }
        assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
        assertThat(r.body()).contains("no answer within the deadline of 700 ms",
                                      "unitas.readiness.home-reads.timeout: 700ms");
    }
}
