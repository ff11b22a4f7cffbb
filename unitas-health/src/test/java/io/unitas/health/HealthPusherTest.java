package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HealthPusherTest {

    @ParameterizedTest(name = "retry {0} after {1} ms")
    @CsvSource({"1, 250", "2, 500", "3, 1000", "6, 8000", "7, 10000", "100, 10000"})
    void retriesBackOffExponentiallyFrom250msUpTo10s(int attempt, long ms) {
        assertThat(HealthPusher.backoff(attempt, Duration.ofMinutes(1))).isEqualTo(Duration.ofMillis(ms));
    }

    /**
     * Never longer than the push interval: a control plane back from an outage expires what it has not heard for its
     * TTL and grace, so an agent still waiting out a 10 s backoff would take its region down with it.
     */
    @ParameterizedTest(name = "retry {0} after {1} ms when pushing every 500 ms")
    @CsvSource({"1, 250", "2, 500", "3, 500", "100, 500"})
    void retriesNeverWaitLongerThanThePushInterval(int attempt, long ms) {
        assertThat(HealthPusher.backoff(attempt, Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(ms));
    }

    @Test
    void cleartextToAnotherHost_isRefused_becauseTheTokenWouldCrossTheNetworkReadable() {
        PushConfig push = new PushConfig(URI.create("http://control.internal:7070/api/v1/health/cn"), null, null,
                                         Duration.ofSeconds(10), null, false);
        Supplier<io.unitas.core.health.HealthReport> none = () -> null;

        assertThatThrownBy(() -> new HealthPusher(push, none).close())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http://control.internal:7070/api/v1/health/cn")
                .hasMessageContaining("expected: https://, or allow-insecure: true");
    }

    @Test
    void cleartextToAnotherHost_isAllowedWhenSaidSo() {
        PushConfig push = new PushConfig(URI.create("http://control.internal:7070/api/v1/health/cn"), null, null,
                                         Duration.ofSeconds(10), null, true);
        new HealthPusher(push, () -> null).close();
    }

    @Test
    void aTokenFileRotatedToOneOthersMayRead_isRefusedAtThePush_notSent(@TempDir Path dir) throws Exception {
        Path token = io.unitas.config.internal.SecretFiles.writePrivate(dir.resolve("push-token"), "t0ken\n");
        PushConfig push = new PushConfig(URI.create("http://127.0.0.1:1/api/v1/health/cn"), token, null,
                                         Duration.ofSeconds(10), null, false);
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> HealthPusher.client(push).send("PUT", "/api/v1/health/cn", "{}", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(token + ": the push token has mode rw-r--r--, open to others (expected: 600 or stricter,"
                            + " as chmod 600 " + token + " gives)");
    }
}
