package io.unitas.control.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The pure parts of the watch: reading events, and the backoff between reconnections. */
class WatchPartsTest {

    private final List<ControlClient.WatchEvent> events = new ArrayList<>();
    private final List<String> bad = new ArrayList<>();
    private final SseReader.Sink sink = new SseReader.Sink() {
        @Override
        public void state(long revision, String data) {
            events.add(new ControlClient.WatchEvent(revision, data));
        }

        @Override
        public void bad(String why) {
            bad.add(why);
        }
    };

    private void read(String... lines) {
        SseReader reader = new SseReader();
        for (String line : lines) {
            reader.line(line, sink);
        }
    }

    @Test
    void theEventFormatIsIdEventData_andHeartbeatsAndOtherEventsAreSkipped() {
        read(": heartbeat", "", "retry: 1000", "", "id: 7", "event: state", "data: {\"revision\":7}", "", "id: 8",
             "event: other", "data: x", "");

        assertThat(events).containsExactly(new ControlClient.WatchEvent(7, "{\"revision\":7}"));
        assertThat(bad).isEmpty();
    }

    @Test
    void anEventIdThatIsNotARevision_isSkippedAndTheStreamGoesOn() {
        read("id: seven", "event: state", "data: {}", "", "id: 99999999999999999999", "event: state", "data: {}", "",
             "id: 9", "event: state", "data: {\"revision\":9}", "");

        assertThat(events).containsExactly(new ControlClient.WatchEvent(9, "{\"revision\":9}"));
        assertThat(bad).hasSize(2).first().asString().isEqualTo(
                "event id 'seven' (expected: a revision, a whole number >= 0)");
    }

    @ParameterizedTest(name = "retry {0}: between {1} and {2} ms")
    @CsvSource({"1, 125, 250", "2, 250, 500", "3, 500, 1000", "8, 15000, 30000", "60, 15000, 30000"})
    void backoffDoublesWithJitterFromHalfToAll_upToTheLongest(int attempt, long low, long high) {
        Backoff backoff = new Backoff(Duration.ofMillis(250), Duration.ofSeconds(30));
        SplittableRandom random = new SplittableRandom(attempt);
        for (int i = 0; i < 1_000; i++) {
            assertThat(backoff.delay(attempt, random).toMillis()).isBetween(low, high);
        }
        assertThat(backoff.ceiling(attempt)).isEqualTo(Duration.ofMillis(high));
    }

    @Test
    void backoffIsSpreadAcrossClients() {
        Backoff backoff = new Backoff(Duration.ofMillis(250), Duration.ofSeconds(30));
        SplittableRandom random = new SplittableRandom(1);
        long distinct = java.util.stream.IntStream.range(0, 100).mapToLong(i -> backoff.delay(5, random).toMillis())
                                                  .distinct().count();
        assertThat(distinct).isGreaterThan(50);
    }
}
