package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.unitas.spring.app.MutableRoutingState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The wrong-region write guard, one contract for the Servlet and the WebFlux stack: a service in eu refuses a write
 * whose unit the route decision sends elsewhere (421 {@code not-home-region}), serves every read, serves a write the
 * decision sends here (a failover), and stamps its outgoing calls with the region that served (eu), whatever region
 * the request was addressed to. Users: 10 is u-cn's, 40 u-eu's, 80 u-us's (mod 100).
 */
abstract class WriteGuardContract {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @Autowired
    MutableRoutingState state;

    /** The path that calls {@code /echo} and answers the headers it received. */
    abstract String callPath();

    @AfterEach
    void healthy() {
        state.down(null);
    }

    HttpResponse<String> send(String method, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aWriteOfAUnitServedInAnotherRegion_isRefused421_namingTheUnitItsHomeAndThisRegion() throws Exception {
        HttpResponse<String> refused = send("POST", "/orders", "x-user-id", "80");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(421);
        assertThat(refused.headers().firstValue("content-type")).hasValue("application/problem+json");
        assertThat(refused.body()).contains("\"type\":\"urn:unitas:problem:not-home-region\"",
                                           "unit u-us", "home region us", "not in eu");
    }

    @Test
    void aStampNamingThisRegion_doesNotMakeAWrongRegionWriteRight() throws Exception {
        // a made-up stamp: the live unit map and health decide, not what the request says about itself
        assertThat(send("POST", "/orders", "x-user-id", "80", "x-unitas-region", "eu").statusCode())
                .isEqualTo(421);
        assertThat(send("POST", "/orders", "x-unitas-unit", "u-us", "x-unitas-region", "eu").statusCode())
                .isEqualTo(421);
    }

    @Test
    void aReadOfAUnitServedInAnotherRegion_isServed() throws Exception {
        assertThat(send("GET", "/echo", "x-user-id", "80").statusCode()).isEqualTo(200);
    }

    @Test
    void aWriteOfThisRegionsUnit_andAKeylessWrite_areServed() throws Exception {
        assertThat(send("POST", "/orders", "x-user-id", "40").statusCode()).isEqualTo(200);
        assertThat(send("POST", "/orders").statusCode()).isEqualTo(200);
    }

    @Test
    void aWriteTheRouteDecisionFailsOverHere_isServed_andItsHomesWritesAreNoLongerServedAtHome() throws Exception {
        state.down("cn");                                  // u-cn's home down: eu is the first of its fallbacks
        assertThat(send("POST", "/orders", "x-user-id", "10").statusCode()).isEqualTo(200);
        state.down("eu");                                  // eu down: its own users' writes belong in cn now
        HttpResponse<String> refused = send("POST", "/orders", "x-user-id", "40");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(421);
        assertThat(refused.body()).contains("unit u-eu", "served in cn", "not in eu");
    }

    @Test
    void aDirectCallForAnotherRegionsUser_isStampedWithTheRegionThatServedIt() throws Exception {
        HttpResponse<String> r = send("GET", callPath(), "x-user-id", "80");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"x-unitas-unit\":\"u-us\"", "\"x-unitas-region\":\"eu\"");
    }

    @Test
    void aGatewaysStampForAnotherRegion_isRestampedWithTheRegionThatServedIt() throws Exception {
        HttpResponse<String> r = send("GET", callPath(), "x-unitas-unit", "u-us", "x-unitas-region", "us",
                                      "x-unitas-origin", "cn", "x-unitas-hops", "1");
        assertThat(r.body()).contains("\"x-unitas-unit\":\"u-us\"", "\"x-unitas-region\":\"eu\"",
                                      "\"x-unitas-origin\":\"cn\"", "\"x-unitas-hops\":\"1\"");
    }
}
