package io.unitas.resolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** Mistakes in the resolver's settings are named with what was expected. */
class SettingsTest {

    @Test
    void serviceNames_areCompared_withoutCaseOrTheFinalDot() {
        assertThat(ServiceName.srv("_API._tcp.Shop.Example.", 8443)).isEqualTo(ServiceName.srv("_api._tcp.shop.example", 8443));
        assertThat(ServiceName.host("www.shop.example", 443)).hasToString("www.shop.example:443");
        assertThatThrownBy(() -> ServiceName.host("www.shop.example", 70_000))
                .hasMessage("port: 70000 (expected: 0..65535)");
        assertThatThrownBy(() -> ServiceName.srv(" ", 1)).hasMessage("name: ' ' (expected: a DNS name)");
    }

    @Test
    void triggers_areChecked() {
        assertThat(FallbackTriggers.DEFAULT)
                .isEqualTo(new FallbackTriggers(Duration.ofMillis(800), 3, Duration.ofSeconds(1)));
        assertThatThrownBy(() -> new FallbackTriggers(Duration.ZERO, 3, Duration.ofSeconds(1)))
                .hasMessage("slowerThan: PT0S (expected: > 0s)");
        assertThatThrownBy(() -> new FallbackTriggers(Duration.ofMillis(800), 0, Duration.ofSeconds(1)))
                .hasMessage("failuresInARow: 0 (expected: >= 1)");
    }

    @Test
    void theBuilder_namesWhatIsMissingOrWrong() {
        assertThatThrownBy(() -> UnitasResolver.builder().build())
                .hasMessage("dnsServer: not set (expected: the DNS server's address)");
        assertThatThrownBy(() -> UnitasResolver.builder().probeInterval(Duration.ofSeconds(-3)))
                .hasMessage("probeInterval: PT-3S (expected: > 0s)");
        assertThatThrownBy(() -> EndpointProbe.http("healthz", Duration.ofSeconds(1)))
                .hasMessage("path: 'healthz' (expected: to start with /)");
    }
}
