package io.unitas.dns;

import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the server's own background loops (connection deadlines, the metrics endpoint's deadlines) running: a
 * round that fails, with an {@link Error} as much as an exception, is logged with its loop's name and counted
 * ({@code unitas_dns_loop_failures_total}), and the next round runs as planned. A scheduled task that throws is
 * never run again, silently; that is what this prevents. An out-of-memory error ends the process only under
 * {@code -XX:+ExitOnOutOfMemoryError}, the flag docs/dns.md asks for.
 */
final class LoopGuard {

    private static final Logger log = LoggerFactory.getLogger(LoopGuard.class);

    private final LongAdder failures = new LongAdder();

    /** {@code round}, guarded: it never throws. */
    Runnable guard(String loop, Runnable round) {
        return () -> {
            try {
                round.run();
            } catch (Throwable t) { // Errors too: the loop must outlive any one round
                failures.increment();
                log.error("{}: a round failed, the loop goes on: {}", loop, t.toString());
            }
        };
    }

    /** Rounds that failed, over every loop. */
    long failures() {
        return failures.sum();
    }
}
