package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Each label combination's requests are counted on its own meters, however many combinations there are. */
class GatewayMetricsTest {

    @Test
    void moreCombinationsThanTheRecentTableHoldsAreEachCountedOnTheirOwn() {
        try (GatewayMetrics metrics = new GatewayMetrics("cn", null)) {
            for (int round = 1; round <= 3; round++) {
                for (int i = 0; i < 200; i++) {
                    for (int j = 0; j < round; j++) {
                        metrics.record("GET", "/", "-", "h" + i, i % 2 == 0 ? "cn" : "eu", "home", 200, 1_000);
                    }
                }
            }

            String scrape = metrics.scrape();
            for (int i = 0; i < 200; i++) {
                assertThat(scrape).contains("unitas_gateway_requests_total{gateway_region=\"cn\",home_region=\"h" + i
                                            + "\",route=\"home\",status_class=\"2xx\",target_region=\""
                                            + (i % 2 == 0 ? "cn" : "eu") + "\"} 6.0");
            }
        }
    }
}
