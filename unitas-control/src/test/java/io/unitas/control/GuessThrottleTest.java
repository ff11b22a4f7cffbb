package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.testkit.MutableClock;

/** Guessing tokens is slowed per client; a client that stops guessing may try again once its budget refills. */
class GuessThrottleTest {

    private final AtomicLong now = new AtomicLong();
    private final GuessThrottle throttle = new GuessThrottle(1, 3, now::get);

    @Test
    void aClientMayGuessItsBurst_thenIsBlocked_untilTheBudgetRefills() throws Exception {
        InetAddress guesser = InetAddress.getByName("192.0.2.7");
        InetAddress neighbour = InetAddress.getByName("192.0.2.8");

        for (int i = 0; i < 3; i++) {
            assertThat(throttle.blocked(guesser)).isFalse();
            assertThat(throttle.failed(guesser)).isZero();
        }
        assertThat(throttle.blocked(guesser)).isTrue();
        assertThat(throttle.blocked(neighbour)).isFalse();

        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(throttle.blocked(guesser)).isFalse();
    }

    @Test
    void anIpv6Client_isOneSlash64() throws Exception {
        for (int i = 0; i < 3; i++) {
            throttle.failed(InetAddress.getByName("2001:db8:1:2::" + (i + 1)));
        }

        assertThat(throttle.blocked(InetAddress.getByName("2001:db8:1:2::99"))).isTrue();
        assertThat(throttle.blocked(InetAddress.getByName("2001:db8:1:3::1"))).isFalse();
    }

    @Test
    void theApi_answers429WithRetryAfter_toAClientThatGuessedTooOften(@TempDir Path dir) throws Exception {
        MutableClock clock = new MutableClock(Instant.parse("2026-12-04T12:00:00Z")); // no refill while it runs
        try (ControlServer server = ControlServer.builder().port(0).dataDir(dir.resolve("data"))
                .tokens(Fixtures.tokensFile(dir)).clock(clock).start()) {
            HttpClient http = HttpClient.newHttpClient();
            int unauthorized = 0;
            HttpResponse<String> last = null;
            for (int i = 0; i < 30; i++) {
                last = http.send(HttpRequest.newBuilder(URI.create(server.uri() + "/api/v1/state"))
                                            .header("authorization", "Bearer wrong-" + i).build(),
                                 HttpResponse.BodyHandlers.ofString());
                if (last.statusCode() == 401) {
                    unauthorized++;
                }
            }

            assertThat(unauthorized).isEqualTo(20);
            assertThat(last.statusCode()).isEqualTo(429);
            assertThat(last.headers().firstValue("retry-after")).hasValue("1");
            assertThat(last.body()).contains("too-many-guesses", "too many wrong tokens from 127.0.0.1");
        }
    }
}
