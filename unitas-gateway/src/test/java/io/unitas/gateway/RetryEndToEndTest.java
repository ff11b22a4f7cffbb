package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.RequestHeaders;

import io.unitas.core.Region;
import io.unitas.testkit.Ports;

/**
 * One region with three endpoints: one answers every request 503 while its health check still passes (so only
 * retries can route around it), one fails its health check. Reads and keyed writes are retried on another
 * endpoint, bare POSTs never; the endpoint that fails its check gets no traffic.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RetryEndToEndTest {

    final Backend failing = new Backend("failing");
    final Backend good = new Backend("good");
    final Backend sick = new Backend("sick");
    Gateway gateway;
    WebClient client;

    @BeforeAll
    void start() throws Exception {
        failing.failWith(503);
        sick.healthy(false);
        gateway = GatewayServer.start(GatewayEndToEndTest.config("cn", Ports.free(), Map.of(
                Region.of("cn"), GatewayEndToEndTest.http1(null, failing.endpoint(), good.endpoint(),
                                                           sick.endpoint()))),
                                      new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
        client = WebClient.of("http://127.0.0.1:" + gateway.port());
    }

    @AfterAll
    void stop() {
        gateway.close();
        failing.close();
        good.close();
        sick.close();
    }

    int send(HttpMethod method, String... extra) {
        RequestHeaders h = RequestHeaders.builder(method, "/pay").add("x-user-id", "100")
                                         .add(GatewayEndToEndTest.pairs(extra)).build();
        return client.execute(HttpRequest.of(h, HttpData.ofUtf8("{}"))).aggregate().join().status().code();
    }

    @Test
    void readsAreRetriedOnAnotherEndpoint() {
        for (int i = 0; i < 10; i++) {
            assertThat(send(HttpMethod.GET)).isEqualTo(200);
        }
        assertThat(failing.gets()).isPositive();
    }

    @Test
    void anEndpointFailingItsHealthCheckGetsNoTraffic() {
        for (int i = 0; i < 10; i++) {
            send(HttpMethod.GET);
            send(HttpMethod.POST, "idempotency-key", "h-" + i);
        }
        assertThat(sick.gets() + sick.writes()).isZero();
    }

    @Test
    void writesWithAnIdempotencyKeyAreRetried() {
        for (int i = 0; i < 10; i++) {
            assertThat(send(HttpMethod.POST, "idempotency-key", "k-" + i)).isEqualTo(200);
        }
    }

    @Test
    void aBarePostIsNeverReplayed() {
        int before = failing.writes() + good.writes();
        int refused = 0;
        for (int i = 0; i < 10; i++) {
            if (send(HttpMethod.POST) == 503) {
                refused++;
            }
        }
        assertThat(refused).isPositive();
        assertThat(failing.writes() + good.writes() - before).isEqualTo(10);
    }
}
