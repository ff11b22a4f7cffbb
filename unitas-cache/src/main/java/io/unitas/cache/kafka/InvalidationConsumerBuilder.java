package io.unitas.cache.kafka;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.unitas.cache.InvalidationTarget;

/** Options of an {@link InvalidationConsumer}; every one has a default but the {@link #groupId}. */
public final class InvalidationConsumerBuilder {

    final String bootstrapServers;
    final String cacheName;
    final InvalidationTarget target;
    String groupId;
    int maxAttempts = 5;
    Duration initialBackoff = Duration.ofMillis(100);
    Duration maxBackoff = Duration.ofSeconds(5);
    Duration pollTimeout = Duration.ofMillis(500);
    Duration redriveEvery = Duration.ofMinutes(1);
    Duration maxRedriveEvery = Duration.ofMinutes(30);
    Clock clock = Clock.systemUTC();
    MeterRegistry registry = Metrics.globalRegistry;
    /** null: the consumer's own wait, which its close ends. */
    Sleeper sleeper;

    InvalidationConsumerBuilder(String bootstrapServers, String cacheName, InvalidationTarget target) {
        this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        this.cacheName = Objects.requireNonNull(cacheName, "cacheName");
        this.target = Objects.requireNonNull(target, "target");
    }

    /**
     * The consumer group, stable across restarts of this process (its committed offset is where a restart resumes)
     * and its own: two processes in one group would each see only part of the events. Required.
     */
    public InvalidationConsumerBuilder groupId(String groupId) {
        Objects.requireNonNull(groupId, "groupId");
        if (groupId.isBlank()) {
            throw new IllegalArgumentException("cache '" + cacheName + "': groupId: blank (expected: a consumer group "
                    + "of this process's own, stable across restarts)");
        }
        this.groupId = groupId;
        return this;
    }

    /**
     * How often an invalidation that fails is tried before it goes to the dead-letter topic (default 5), waiting
     * {@code initial} before the second try and twice as long each time after, at most {@code max}
     * (defaults 100 ms and 5 s).
     */
    public InvalidationConsumerBuilder retries(int maxAttempts, Duration initial, Duration max) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException(
                    "cache '" + cacheName + "': maxAttempts: " + maxAttempts + " (expected: >= 1)");
        }
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(max, "max");
        if (initial.isNegative() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("cache '" + cacheName + "': backoff: " + initial + " to " + max
                    + " (expected: 0 <= initial <= max)");
        }
        this.maxAttempts = maxAttempts;
        this.initialBackoff = initial;
        this.maxBackoff = max;
        return this;
    }

    /**
     * How often the dead letters are read back and applied again (default every minute), doubling after a round
     * in which one still failed, up to {@code max} (default 30 min), back to {@code every} after a round that
     * applied them all.
     */
    public InvalidationConsumerBuilder redrive(Duration every, Duration max) {
        Objects.requireNonNull(every, "every");
        Objects.requireNonNull(max, "max");
        if (every.toMillis() < 1 || max.compareTo(every) < 0) {
            throw new IllegalArgumentException("cache '" + cacheName + "': redrive: every " + every + ", at most "
                    + max + " (expected: 1 ms <= every <= max)");
        }
        this.redriveEvery = every;
        this.maxRedriveEvery = max;
        return this;
    }

    /** The clock of the last poll's time and of the redrive rounds (default UTC system clock). */
    public InvalidationConsumerBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** Where the consumer's meters go (default Micrometer's global registry). */
    public InvalidationConsumerBuilder meterRegistry(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        return this;
    }

    /** How the backoff waits; tests record the waits instead of sleeping. */
    InvalidationConsumerBuilder sleeper(Sleeper sleeper) {
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        return this;
    }

    /** The consumer, not started. */
    public InvalidationConsumer build() {
        if (groupId == null) {
            throw new IllegalStateException("cache '" + cacheName + "': groupId: not set (expected: a consumer group "
                    + "of this process's own, stable across restarts)");
        }
        return new KafkaInvalidationConsumer(this);
    }
}
