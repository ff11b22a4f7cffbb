package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HealthPusherTest {

    @ParameterizedTest(name = "retry {0} after {1} ms")
    @CsvSource({"1, 250", "2, 500", "3, 1000", "6, 8000", "7, 10000", "100, 10000"})
    void retriesBackOffExponentiallyFrom250msUpTo10s(int attempt, long ms) {
        assertThat(HealthPusher.backoff(attempt)).isEqualTo(Duration.ofMillis(ms));
    }
}
