package io.unitas.spring.boot4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.core.fence.FencePolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;

/**
 * The same starter jar the Spring Boot 3.5 tests use, in a Spring Boot 4.0 / Spring Cloud 2025.1 Servlet service: the
 * gateway's stamp is read, written on the next {@code RestClient}, {@code RestTemplate}, {@code WebClient} and OpenFeign
 * call, carried into {@code @Async} methods and the application's own pools without leaking into the next request; fenced writes are refused; the service's metrics carry the unit and
 * {@code /actuator/unitas} shows the state; Spring Cloud LoadBalancer picks instances of the unit's region.
 */
@SpringBootTest(classes = Boot4App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class Boot4StarterTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Value("${local.server.port}")
    int port;

    @Autowired
    MutableRoutingState state;

    @Autowired
    LoadBalancerClient loadBalancer;

    @Autowired
    MeterRegistry meters;

    @AfterEach
    void reset() {
        state.fence(null, null);
        state.down(null);
    }

    private HttpResponse<String> send(String method, String path, String... headers) throws IOException,
            InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void runsOnSpringBoot4() {
        assertThat(SpringBootVersion.getVersion()).startsWith("4.0.");
    }

    @Test
    void theGatewaysStamp_isReadFromTheHeaders() throws Exception {
        HttpResponse<String> r = send("GET", "/echo", "x-unitas-unit", "u-cn", "x-unitas-region", "cn");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"context.unit\":\"u-cn\"");
        assertThat(send("GET", "/echo").body()).contains("\"context.unit\":\"null\"");
    }

    @Test
    void theStamp_isWrittenOnTheNextRestClientCall() throws Exception {
        HttpResponse<String> r = send("GET", "/call/restclient", "x-unitas-unit", "u-cn", "x-unitas-region", "cn",
                                      "x-unitas-origin", "us", "x-unitas-hops", "1");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"x-unitas-unit\":\"u-cn\"", "\"x-unitas-region\":\"eu\"",
                                      "\"x-unitas-origin\":\"us\"", "\"x-unitas-hops\":\"1\"",
                                      "\"context.unit\":\"u-cn\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"resttemplate", "webclient", "feign", "pool", "nested-pool"})
    void theStamp_isWrittenOnTheOtherClients(String via) throws Exception {
        HttpResponse<String> r = send("GET", "/call/" + via, "x-unitas-unit", "u-cn", "x-unitas-region", "cn");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"x-unitas-unit\":\"u-cn\"", "\"x-unitas-region\":\"eu\"",
                                      "\"context.unit\":\"u-cn\"");
    }

    @Test
    void noStamp_butARoutingKey_placesTheRequestByTheRules() throws Exception {
        assertThat(send("GET", "/call/restclient", "x-user-id", "1070").body())
                .contains("\"x-unitas-unit\":\"u-us\"", "\"x-unitas-region\":\"eu\"");
    }

    @Test
    void theStamp_isCarriedIntoAsyncMethods() throws Exception {
        HttpResponse<String> r = send("GET", "/call/async", "x-unitas-unit", "u-cn", "x-unitas-region", "cn");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"x-unitas-unit\":\"u-cn\"", "\"x-unitas-region\":\"eu\"",
                                      "\"context.unit\":\"u-cn\"");
        // the call left from the application's executor (its only one, so @Async's), not the request's thread
        assertThat(r.body()).contains("\"sent.from\":\"single-");
    }

    @Test
    void leak_aPooledThreadDoesNotCarryOneRequestsUnitIntoTheNext() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(send("GET", "/async-unit", "x-unitas-unit", "u-cn", "x-unitas-region", "cn").body())
                    .isEqualTo("u-cn");
            assertThat(send("GET", "/async-unit").body()).isEqualTo("null");
        }
    }

    @Test
    void aFencedUnitsWrite_isRefusedWith503AndRetryAfter() throws Exception {
        state.fence("u-us", FencePolicy.reject(Duration.ofSeconds(7)));
        HttpResponse<String> refused = send("POST", "/orders", "x-user-id", "70");
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("content-type")).hasValue("application/problem+json");
        assertThat(refused.headers().firstValue("retry-after")).hasValue("7");
        assertThat(refused.body()).contains("\"type\":\"urn:unitas:problem:write-fenced\"");
        assertThat(send("GET", "/echo", "x-user-id", "70").statusCode()).isEqualTo(200);
        HttpResponse<String> other = send("POST", "/orders", "x-user-id", "40");
        assertThat(other.statusCode()).isEqualTo(200);
        assertThat(other.body()).isEqualTo("{\"unit\":\"u-eu\"}");
        // the write guard: a us user's write at this eu instance is refused once the fence is lifted too
        state.fence(null, null);
        HttpResponse<String> wrongRegion = send("POST", "/orders", "x-user-id", "70");
        assertThat(wrongRegion.statusCode()).as(wrongRegion.body()).isEqualTo(421);
        assertThat(wrongRegion.body()).contains("\"type\":\"urn:unitas:problem:not-home-region\"");
    }

    @Test
    void theServicesOwnHttpMetrics_areTaggedWithTheUnit() throws Exception {
        send("GET", "/echo", "x-unitas-unit", "u-eu", "x-unitas-region", "eu");
        send("GET", "/echo");
        await("http.server.requests of /echo by unit").atMost(Duration.ofSeconds(30)).until(() ->
                meters.find("http.server.requests").tag("uri", "/echo").tag("unitas.unit", "u-eu").timer() != null
                && meters.find("http.server.requests").tag("uri", "/echo").tag("unitas.unit", "none").timer() != null);
    }

    @Test
    void theActuatorEndpoint_showsTheRoutingStateTheServiceSees() throws Exception {
        state.fence("u-cn", FencePolicy.reject(Duration.ofSeconds(5)));
        HttpResponse<String> r = send("GET", "/actuator/unitas");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"region\":\"eu\"", "\"units\":{\"u-cn\":\"cn\",\"u-eu\":\"eu\",\"u-us\":\"us\"}",
                                      "\"fenced\":[\"u-cn\"]");
    }

    /** The instance ids chosen over enough calls to see every instance the selection lets through. */
    private Set<String> chosen(RoutingContext context) {
        Set<String> ids = new HashSet<>();
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(context)) {
            for (int i = 0; i < 20; i++) {
                ServiceInstance instance = loadBalancer.choose("inventory");
                ids.add(instance == null ? "none" : instance.getInstanceId());
            }
        }
        return ids;
    }

    @Test
    void loadBalancer_picksInstancesOfTheUnitsRegion() {
        assertThat(chosen(new RoutingContext("u-cn", "cn", "eu", 1, null)))
                .containsExactlyInAnyOrder("inventory-cn-1", "inventory-cn-2");
        assertThat(chosen(new RoutingContext("u-us", "us", null, 0, null))).containsExactly("inventory-us-1");
        assertThat(chosen(RoutingContext.EMPTY)).containsExactly("inventory-eu-1");
        assertThat(chosen(new RoutingContext("u-eu", "eu", null, 0, "v2"))).containsExactly("inventory-eu-gray");
    }

    @Test
    void loadBalancer_homeDown_failsOverNeverToTheDownRegion() {
        state.down("cn");
        assertThat(chosen(new RoutingContext("u-cn", "cn", "eu", 1, null)))
                .doesNotContain("inventory-cn-1", "inventory-cn-2", "none");
    }
}
