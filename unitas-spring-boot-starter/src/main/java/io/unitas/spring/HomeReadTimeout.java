package io.unitas.spring;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one timeout of a home read (and of an idempotency call at a home): {@code unitas.readiness.home-reads.timeout},
 * default 1s. It used to be two that overlapped ({@code unitas.readiness.home-timeout} and
 * {@code unitas.readiness.home-reads.deadline}, the shorter one ending the read); either still works, with a warning,
 * as the timeout when the new name is not set (both: the shorter, as before).
 */
final class HomeReadTimeout {

    /** The property every message that reports a home read running out of time names. */
    static final String PROPERTY = "unitas.readiness.home-reads.timeout";
    static final Duration DEFAULT = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(HomeReadTimeout.class);

    private HomeReadTimeout() {}

    /** The timeout {@code properties} set. */
    @SuppressWarnings("deprecation")
    static Duration of(UnitasProperties properties) {
        UnitasProperties.Readiness readiness = properties.getReadiness();
        Duration timeout = readiness.getHomeReads().getTimeout();
        if (timeout != null) {
            return timeout;
        }
        Duration old = readiness.getHomeTimeout();
        Duration deadline = readiness.getHomeReads().getDeadline();
        if (old != null && deadline != null) {
            return old.compareTo(deadline) < 0 ? old : deadline;
        }
        return old != null ? old : deadline != null ? deadline : DEFAULT;
    }

    /** Logs one warning per deprecated name that is set, saying whether it is used. */
    @SuppressWarnings("deprecation")
    static void warnDeprecated(UnitasProperties properties) {
        UnitasProperties.Readiness readiness = properties.getReadiness();
        String use = readiness.getHomeReads().getTimeout() != null ? "ignored, since " + PROPERTY + " is set"
                                                                   : "used as " + PROPERTY + ": " + of(properties);
        if (readiness.getHomeTimeout() != null) {
            log.warn("unitas.readiness.home-timeout: {} is deprecated (expected: {}, the one timeout of a home read);"
                     + " {}", readiness.getHomeTimeout(), PROPERTY, use);
        }
        if (readiness.getHomeReads().getDeadline() != null) {
            log.warn("unitas.readiness.home-reads.deadline: {} is deprecated (expected: {}, the one timeout of a home"
                     + " read); {}", readiness.getHomeReads().getDeadline(), PROPERTY, use);
        }
    }
}
