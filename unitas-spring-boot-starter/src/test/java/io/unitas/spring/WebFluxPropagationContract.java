package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.fence.FencePolicy;
import io.unitas.spring.app.MutableRoutingState;
import io.unitas.spring.reactive.ReactiveApp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * A contract run on every Spring Boot line the starter supports (a subclass per line, each with its own class path).
 * A WebFlux service with only the starter: the context rides the Reactor context, in and out, and fences apply.
 */
@SpringBootTest(classes = ReactiveApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
                properties = "spring.main.web-application-type=reactive")
abstract class WebFluxPropagationContract {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    // the property, not @LocalServerPort, whose package differs between Boot lines
    @Value("${local.server.port}")
    int port;

    @Autowired
    MutableRoutingState state;

    @Autowired
    MeterRegistry meters;

    @AfterEach
    void lift() {
        state.fence(null, null);
    }

    private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theStamp_travelsOnAWebClientCallFromInsideAReactiveChain() throws Exception {
        HttpResponse<String> r = send("GET", "/call", "x-unitas-unit", "u-us", "x-unitas-region", "us",
                                      "x-unitas-origin", "cn", "x-unitas-hops", "2");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        // the stamp leaves naming the region that served (this one), not the one the caller claimed
        assertThat(r.body()).contains("\"x-unitas-unit\":\"u-us\"", "\"x-unitas-region\":\"eu\"",
                                      "\"x-unitas-origin\":\"cn\"", "\"x-unitas-hops\":\"2\"",
                                      "\"context.unit\":\"u-us\"");
    }

    @Test
    void aKeyWithoutStamp_isPlaced_andNothingLeaksIntoTheNextRequest() throws Exception {
        assertThat(send("GET", "/call", "x-user-id", "7").body()).contains("\"x-unitas-unit\":\"u-cn\"");
        for (int i = 0; i < 3; i++) {
            assertThat(send("GET", "/echo").body()).isEqualTo("{\"context.unit\":\"null\"}");
        }
    }

    @Test
    void aRoutingKeyGivenTwice_isRefused_asTheGatewayRefusesIt() throws Exception {
        HttpResponse<String> refused = send("POST", "/orders", "x-user-id", "7", "x-user-id", "40");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("urn:unitas:problem:ambiguous-routing-key",
                                           "routing key header x-user-id given more than once");
    }

    @Test
    void aFencedUnitsWrite_isRefusedWithTheGatewaysProblem() throws Exception {
        state.fence("u-cn", FencePolicy.reject(Duration.ofSeconds(3)));
        HttpResponse<String> refused = send("POST", "/orders", "x-user-id", "7");
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("retry-after")).hasValue("3");
        assertThat(refused.body()).contains("urn:unitas:problem:write-fenced");
        assertThat(send("POST", "/orders", "x-user-id", "40").body()).isEqualTo("u-eu");
    }

    @Test
    void aWriteReachingEu_isRefusedWith421_whileItsHomeServes_andTakenOnceItFailsOverHere()
            throws Exception {
        HttpResponse<String> refused = send("POST", "/orders", "x-user-id", "80");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(421);
        assertThat(refused.headers().firstValue("content-type")).hasValue("application/problem+json");
        assertThat(refused.body()).contains("\"type\":\"urn:unitas:problem:not-home-region\"",
                                           "\"unit\":\"u-us\"", "\"home\":\"us\"", "\"region\":\"eu\"");
        assertThat(send("GET", "/echo", "x-user-id", "80").statusCode()).as("reads pass").isEqualTo(200);
        assertThat(send("POST", "/orders", "x-user-id", "7").statusCode()).isEqualTo(421);
        try {
            state.down("cn"); // cn's writes fail over to eu, the first of its fallbacks
            assertThat(send("POST", "/orders", "x-user-id", "7").body()).isEqualTo("u-cn");
        } finally {
            state.down(null);
        }
    }

    @Test
    void theServicesOwnHttpMetrics_areTaggedWithTheUnit() throws Exception {
        send("GET", "/echo", "x-user-id", "80");
        await("http.server.requests of /echo for u-us").atMost(Duration.ofSeconds(30)).until(() ->
                meters.find("http.server.requests").tag("uri", "/echo").tag("unitas.unit", "u-us")
                      .tag("unitas.route", "off_route").timer() != null);
    }
}
