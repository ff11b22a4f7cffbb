package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

/** The access log's lines, built in a reused buffer, read as the ones built from strings did. */
class AccessLogLineTest {

    @Property
    void theTimestampIsInstantsOwnText(@ForAll @LongRange(min = 0, max = 4_102_444_800L) long second,
                                       @ForAll("nanos") int nanos) {
        Instant t = Instant.ofEpochSecond(second, nanos);

        assertThat(new GatewayMetrics.AccessLine().start(t).text()).isEqualTo(t.toString());
    }

    @Provide
    Arbitrary<Integer> nanos() {
        return Arbitraries.oneOf(
                Arbitraries.of(0, 1, 999_999_999, 608_000_000, 608_100_000, 608_123_000, 608_123_456),
                Arbitraries.integers().between(0, 999).map(ms -> ms * 1_000_000),
                Arbitraries.integers().between(0, 999_999).map(us -> us * 1_000),
                Arbitraries.integers().between(0, 999_999_999));
    }

    @Test
    void aReusedLineKeepsNothingOfTheOneBefore() {
        GatewayMetrics.AccessLine line = new GatewayMetrics.AccessLine();
        Instant t = Instant.parse("2026-11-30T14:12:49.608Z");
        line.start(t).append(" path=/a-rather-long-path-of-a-first-request").append(" status=").append(200);

        line.start(t.plusSeconds(1)).append(" path=/b");

        assertThat(line.text()).isEqualTo("2026-11-30T14:12:50.608Z path=/b");
    }

    @Test
    void aRecordedRequestWritesOneLineWithEveryField() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GatewayMetrics metrics = new GatewayMetrics("cn", new PrintStream(out, false, StandardCharsets.UTF_8))) {
            metrics.record("GET", "/orders?id=1", "u-eu", "eu", "eu", "home", 200, 2_353_999);
            metrics.record("POST", "/caf\u00e9", "-", "none", "none", "none", 503, 999);
        }

        String[] lines = out.toString(StandardCharsets.UTF_8).split(System.lineSeparator());
        assertThat(lines).hasSize(2);
        assertThat(lines[0]).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z .*")
                .endsWith(" method=GET path=/orders?id=1 status=200 gateway_region=cn home_region=eu"
                          + " target_region=eu route=home unit=u-eu status_class=2xx duration_us=2353");
        assertThat(Instant.parse(lines[0].substring(0, lines[0].indexOf(' ')))).isNotNull();
        assertThat(lines[1]).endsWith(" method=POST path=/caf\u00e9 status=503 gateway_region=cn home_region=none"
                                      + " target_region=none route=none unit=- status_class=5xx duration_us=0");
    }

    @Test
    void aLineIsStampedWithTheGatewaysClock() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Clock clock = Clock.fixed(Instant.parse("2026-11-30T14:12:49.608Z"), ZoneOffset.UTC);
        try (GatewayMetrics metrics = new GatewayMetrics("cn", new PrintStream(out, false, StandardCharsets.UTF_8),
                                                         clock)) {
            metrics.record("GET", "/a", "u-cn", "cn", "cn", "home", 200, 1_000);
        }

        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("2026-11-30T14:12:49.608Z method=GET path=/a ");
    }
}
