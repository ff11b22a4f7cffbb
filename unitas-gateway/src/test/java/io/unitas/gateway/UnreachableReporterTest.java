package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.unitas.control.client.ControlClient;
import io.unitas.core.Region;
import org.junit.jupiter.api.Test;

/** The gateway's reports of regions it cannot reach: one report that fails, with an Error too, stops nothing. */
class UnreachableReporterTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");

    private final FakeTicker ticker = new FakeTicker();

    @Test
    void aReportThatThrowsAnError_isCountedAsFailed_andTheNextRegionIsStillReported() {
        Upstreams.Endpoint cn = endpoint("127.0.0.1:1");
        Upstreams.Endpoint us = endpoint("127.0.0.1:2");
        cn.refused();
        us.refused();
        Reachability reachability = new Reachability(Map.of(CN, List.of(cn), US, List.of(us)), ticker,
                                                     Duration.ofSeconds(2));
        List<String> reported = new ArrayList<>();
        ControlClient client = (ControlClient) Proxy.newProxyInstance(
                ControlClient.class.getClassLoader(), new Class<?>[] {ControlClient.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("reportUnreachable")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    if (args[0].equals("cn")) {
                        throw new StackOverflowError("a bug deep in the client");
                    }
                    reported.add((String) args[0]);
                    return null;
                });
        List<String> counted = new ArrayList<>();
        try (UnreachableReporter reporter = UnreachableReporter.start(EU, reachability, client,
                                                                     (region, result) -> counted.add(region.id()
                                                                                                     + " " + result))) {
            reporter.reportNow();

            assertThat(counted).containsExactlyInAnyOrder("cn failed", "us sent");
            assertThat(reported).containsExactly("us");
        }
    }

    private Upstreams.Endpoint endpoint(String hostPort) {
        return new Upstreams.Endpoint(hostPort, GatewayConfig.Protocol.HTTP1, null,
                                      GatewayConfig.Resilience.DEFAULTS, ticker);
    }
}
