package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.fence.FencePolicy;
import io.unitas.spring.app.MutableRoutingState;
import io.unitas.spring.app.ServiceApp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * A contract run on every Spring Boot line the starter supports: a subclass per line imports that line's
 * {@code RestTemplate} configuration and runs on its class path.
 * A Servlet service with only the starter: the gateway's stamp travels on every outgoing call, whichever client
 * makes it and whichever thread it is made from; a pooled thread forgets each request's unit; fenced writes are
 * refused with the gateway's problem.
 */
@SpringBootTest(classes = ServiceApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class ServletPropagationContract {

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

    @ParameterizedTest
    @ValueSource(strings = {"restclient", "resttemplate", "feign", "webclient", "webclient-elastic", "reactor", "async", "pool",
                            "nested-pool", "completable"})
    void theGatewaysStamp_travelsOnTheNextCall(String via) throws Exception {
        // cn's unit routed to eu (this service's region), as when cn is down
        HttpResponse<String> r = send("GET", "/call/" + via, "x-unitas-unit", "u-cn", "x-unitas-region", "eu",
                                      "x-unitas-origin", "us", "x-unitas-hops", "1");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"x-unitas-unit\":\"u-cn\"", "\"x-unitas-region\":\"eu\"",
                                      "\"x-unitas-origin\":\"us\"", "\"x-unitas-hops\":\"1\"",
                                      "\"context.unit\":\"u-cn\"");
    }

    @Test
    void noStamp_butARoutingKey_placesTheRequestByTheGatewaysRules_andTheStampNamesTheRegionThatServed()
            throws Exception {
        HttpResponse<String> r = send("GET", "/call/restclient", "x-user-id", "1070");
        assertThat(r.body()).contains("\"x-unitas-unit\":\"u-us\"", "\"x-unitas-region\":\"eu\"");
    }

    @Test
    void aStampNamingAnotherRegion_leavesNamingThisOne_theRegionThatServed() throws Exception {
        HttpResponse<String> r = send("GET", "/call/restclient", "x-unitas-unit", "u-us", "x-unitas-region", "us");
        assertThat(r.body()).contains("\"x-unitas-unit\":\"u-us\"", "\"x-unitas-region\":\"eu\"");
    }

    @Test
    void aWriteOfAUsUser_reachingEu_isRefusedWith421_beforeItRuns_readsStillPass() throws Exception {
        HttpResponse<String> refused = send("POST", "/orders", "x-user-id", "70");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(421);
        assertThat(refused.headers().firstValue("content-type")).hasValue("application/problem+json");
        assertThat(refused.body()).contains("\"type\":\"urn:unitas:problem:not-home-region\"",
                                           "\"unit\":\"u-us\"", "\"home\":\"us\"", "\"region\":\"eu\"",
                                           "a write of unit u-us reached region eu, which does not take its writes");
        // a stamp claiming this region changes nothing: the routing state decides, not the caller
        assertThat(send("POST", "/orders", "x-unitas-unit", "u-us", "x-unitas-region", "eu").statusCode())
                .isEqualTo(421);
        assertThat(send("GET", "/echo", "x-user-id", "70").statusCode()).isEqualTo(200);
        HttpResponse<String> atHome = send("POST", "/orders", "x-user-id", "40");
        assertThat(atHome.statusCode()).isEqualTo(200);
        assertThat(atHome.body()).isEqualTo("{\"unit\":\"u-eu\"}");
        assertThat(send("POST", "/orders").statusCode()).as("a write without a unit").isEqualTo(200);
    }

    @Test
    void aCallerThatIsRefused_readsTheHomeFromTheProblem_asDocumented() {
        org.springframework.web.client.RestClient service =
                org.springframework.web.client.RestClient.create("http://localhost:" + port);
        assertThat(Orders.order(service, "70")).isEqualTo("us");
        assertThat(Orders.order(service, "40")).as("served here").isNull();
    }

    @Test
    void aWriteOfAUnitWhoseHomeIsDown_isServedWhereTheRoutingStateSendsIt() throws Exception {
        assertThat(send("POST", "/orders", "x-user-id", "5").statusCode()).isEqualTo(421);
        state.down("cn"); // cn's writes fail over to eu, the first of its fallbacks
        HttpResponse<String> failedOver = send("POST", "/orders", "x-user-id", "5");
        assertThat(failedOver.statusCode()).as(failedOver.body()).isEqualTo(200);
        assertThat(failedOver.body()).isEqualTo("{\"unit\":\"u-cn\"}");
    }

    @Test
    void noStampNoKey_nothingIsWritten() throws Exception {
        HttpResponse<String> r = send("GET", "/call/restclient");
        assertThat(r.body()).isEqualTo("{\"context.unit\":\"null\"}");
    }

    @Test
    void leak_aPooledThreadDoesNotCarryOneRequestsUnitIntoTheNext() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(send("GET", "/async-unit", "x-unitas-unit", "u-cn", "x-unitas-region", "cn").body())
                    .isEqualTo("u-cn");
            assertThat(send("GET", "/async-unit").body()).isEqualTo("null");
            assertThat(send("GET", "/echo").body()).isEqualTo("{\"context.unit\":\"null\"}");
        }
    }

    @Test
    void aRoutingKeyGivenTwice_isRefused_asTheGatewayRefusesIt() throws Exception {
        HttpResponse<String> refused = send("POST", "/orders", "x-user-id", "70", "x-user-id", "5");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.headers().firstValue("content-type")).hasValue("application/problem+json");
        assertThat(refused.body()).contains("\"type\":\"urn:unitas:problem:ambiguous-routing-key\"",
                                           "routing key header x-user-id given more than once");
    }

    @Test
    void aFencedUnitsWrite_isRefusedWithTheGatewaysProblem_readsAndOtherUnitsPass() throws Exception {
        state.fence("u-us", FencePolicy.reject(Duration.ofSeconds(7)));
        HttpResponse<String> refused = send("POST", "/orders", "x-user-id", "70");
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("content-type")).hasValue("application/problem+json");
        assertThat(refused.headers().firstValue("retry-after")).hasValue("7");
        assertThat(refused.body()).contains("\"type\":\"urn:unitas:problem:write-fenced\"",
                                           "writes of unit u-us are fenced");
        // a stamped call that bypassed nothing but carries no key is fenced by its stamped unit
        assertThat(send("POST", "/orders", "x-unitas-unit", "u-us", "x-unitas-region", "us").statusCode())
                .isEqualTo(503);
        assertThat(send("GET", "/echo", "x-user-id", "70").statusCode()).isEqualTo(200);
        HttpResponse<String> other = send("POST", "/orders", "x-user-id", "40");
        assertThat(other.statusCode()).isEqualTo(200);
        assertThat(other.body()).isEqualTo("{\"unit\":\"u-eu\"}");
    }

    @Test
    void theServicesOwnHttpMetrics_areTaggedWithTheUnitAndTheRoute() throws Exception {
        send("GET", "/echo", "x-unitas-unit", "u-eu", "x-unitas-region", "eu");
        send("GET", "/echo");
        send("GET", "/echo", "x-user-id", "80");        // u-us, at home in us: it should not have come to eu
        state.down("cn");
        send("GET", "/echo", "x-user-id", "10");        // u-cn, its home down: eu is the first of its fallbacks
        await("http.server.requests of /echo by unit and route").atMost(Duration.ofSeconds(30)).until(() ->
                echo("u-eu", "home") && echo("none", "none") && echo("u-us", "off_route")
                && echo("u-cn", "failover"));
    }

    private boolean echo(String unit, String route) {
        return meters.find("http.server.requests").tag("uri", "/echo").tag("unitas.unit", unit)
                     .tag("unitas.route", route).timer() != null;
    }

    @Test
    void theActuatorEndpoint_showsTheRoutingStateTheServiceSees() throws Exception {
        state.fence("u-cn", FencePolicy.reject(Duration.ofSeconds(5)));
        HttpResponse<String> r = send("GET", "/actuator/unitas");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"region\":\"eu\"", "\"units\":{\"u-cn\":\"cn\",\"u-eu\":\"eu\",\"u-us\":\"us\"}",
                                      "\"healthy\":{\"cn\":true,\"eu\":true,\"us\":true}", "\"fenced\":[\"u-cn\"]");
    }

    @Test
    void theHealthComponent_isOutOfServiceWhileTheRoutingStateHasThisRegionDown() throws Exception {
        HttpResponse<String> up = send("GET", "/actuator/health/unitas");
        assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
        assertThat(up.body()).contains("\"status\":\"UP\"");

        state.down("eu");
        HttpResponse<String> down = send("GET", "/actuator/health/unitas");
        assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
        assertThat(down.body()).contains("\"status\":\"OUT_OF_SERVICE\"");

        state.down("cn");
        assertThat(send("GET", "/actuator/health/unitas").statusCode()).as("another region down").isEqualTo(200);
    }
}
