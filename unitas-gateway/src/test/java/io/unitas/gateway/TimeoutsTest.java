package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;

/** The deadlines of connections and exchanges, on a ticker the tests move; the loop's own tick is an hour away. */
class TimeoutsTest {

    final DefaultEventLoopGroup group = new DefaultEventLoopGroup(1);
    final EventLoop loop = group.next();
    final FakeTicker ticker = new FakeTicker();
    final Timeouts timeouts = new Timeouts(group, ticker, TimeUnit.HOURS.toNanos(1));
    final List<String> expired = new ArrayList<>();

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void anEntryExpiresOnceWhenTheTickerReachesItsDeadlineNotBefore() throws Exception {
        Timeouts.Entry e = onLoop(() -> armed("a", Duration.ofSeconds(10)));

        ticker.advance(Duration.ofSeconds(10).minusNanos(1));
        timeouts.checkNow();
        assertThat(expired).isEmpty();
        ticker.advance(Duration.ofNanos(1));
        timeouts.checkNow();
        ticker.advance(Duration.ofSeconds(10));
        timeouts.checkNow();

        assertThat(expired).containsExactly("a");
        onLoop(() -> {
            e.arm(timeouts.now() + 1); // armed again, it expires again
            return null;
        });
        ticker.advance(Duration.ofNanos(1));
        timeouts.checkNow();
        assertThat(expired).containsExactly("a", "a");
    }

    @Test
    void aDisarmedOrRemovedEntryNeverExpires() throws Exception {
        onLoop(() -> {
            armed("disarmed", Duration.ofSeconds(1)).disarm();
            armed("removed", Duration.ofSeconds(1)).remove();
            return armed("kept", Duration.ofSeconds(1));
        });
        ticker.advance(Duration.ofSeconds(2));
        timeouts.checkNow();

        assertThat(expired).containsExactly("kept");
    }

    @Test
    void anExpiryMayRemoveTheEntryAfterItAndAnExpiryThatThrowsStopsNothing() throws Exception {
        List<Timeouts.Entry> entries = new ArrayList<>();
        onLoop(() -> {
            // entries are checked newest first: "first" removes "second" (a connection closing its stream)
            entries.add(entry("last", now -> expired.add("last")));
            entries.add(entry("second", now -> expired.add("second")));
            entries.add(entry("throws", now -> {
                throw new IllegalStateException("a bug in one expiry");
            }));
            entries.add(entry("first", now -> {
                expired.add("first");
                entries.get(1).remove();
            }));
            entries.forEach(e -> e.arm(timeouts.now() + 5));
            return null;
        });
        ticker.advance(Duration.ofNanos(5));
        timeouts.checkNow();

        assertThat(expired).containsExactly("first", "last");
        assertThat(timeouts.failures()).isEqualTo(1);
    }

    @Test
    void anExpiryThatThrowsAnError_stopsNothingEither() throws Exception {
        onLoop(() -> {
            entry("after", now -> expired.add("after")).arm(timeouts.now() + 5);
            entry("errs", now -> {
                throw new StackOverflowError("a bug deeper in one expiry");
            }).arm(timeouts.now() + 5);
            return null;
        });
        ticker.advance(Duration.ofNanos(5));
        timeouts.checkNow();

        assertThat(expired).containsExactly("after");
        assertThat(timeouts.failures()).isEqualTo(1);
    }

    private Timeouts.Entry armed(String name, Duration after) {
        Timeouts.Entry e = entry(name, now -> expired.add(name));
        e.arm(timeouts.now() + after.toNanos());
        return e;
    }

    private Timeouts.Entry entry(String name, LongConsumer onExpiry) {
        return timeouts.entry(loop, onExpiry);
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return loop.submit(task).get(30, TimeUnit.SECONDS);
    }
}
