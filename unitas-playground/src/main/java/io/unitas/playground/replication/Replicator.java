package io.unitas.playground.replication;

import io.unitas.core.Region;
import io.unitas.playground.store.ChangeReconciler;
import io.unitas.playground.store.RegionalStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Ships each regional store's change log to every other regional store. Each change carries its origin and
 * sequence, so applying is idempotent and in order, and its write time, so lag per link is measured, not guessed.
 *
 * <p>{@link #replicateDue()} does one round; {@link #start()} runs rounds in the background. Tests with a fake
 * clock call {@code replicateDue()} themselves. The embedded replicator reads each origin's log and applies it in
 * the target; the Kafka one ({@link Builder#kafka}) publishes each log to Apache Kafka and applies what each region
 * receives, with the same links, faults and lag.
 */
public interface Replicator extends ReplicationLag, AutoCloseable {

    /** A builder of a replicator between the given stores: embedded unless {@link Builder#kafka} is given. */
    static Builder builder() {
        return new Builder();
    }

    /** Applies every change that is due (older than its link's delay) on every link that is not paused. */
    void replicateDue();

    /** Runs {@link #replicateDue()} in the background every poll interval until {@link #close()}. */
    void start();

    /** Stops shipping from {@code from} to {@code to}; lag keeps being measured and grows. */
    void pause(Region from, Region to);

    /** Resumes shipping from {@code from} to {@code to}. */
    void resume(Region from, Region to);

    /** Sets the delay of the link from {@code from} to {@code to}. */
    void delay(Region from, Region to, Duration delay);

    /** The link from {@code from} to {@code to} as last measured. */
    LinkStatus link(Region from, Region to);

    /** The lag of the link from {@code from} to {@code to}: {@code link(from, to).lagMillis()}. */
    @Override
    default long lagMillis(Region from, Region to) {
        return link(from, to).lagMillis();
    }

    /** Every link as last measured, by origin then target in the stores' order. */
    List<LinkStatus> links();

    /**
     * Runs a round now and answers whether every link has applied all its origin had written: unlike {@link #links()},
     * whose last round may predate the latest writes, this is what a caller waiting for replication to settle needs.
     */
    boolean caughtUp();

    /** Stops the background rounds, if started. */
    @Override
    void close();

    /** Collects the stores and settings of a replicator. */
    final class Builder {
        private final List<RegionalStore> stores = new ArrayList<>();
        private final Map<List<Region>, Duration> delays = new HashMap<>();
        private Clock clock = Clock.systemUTC();
        private Duration delay = Duration.ZERO;
        private Duration pollInterval = Duration.ofMillis(5);
        private int batchSize = 1_000;
        private ChangeReconciler reconciler = ChangeReconciler.ORDINARY;
        private String kafkaBootstrap;
        private String topicPrefix = "unitas.";

        private Builder() {}

        /**
         * Replicates through the Kafka cluster at {@code bootstrapServers}, on topics named from {@code topicPrefix}
         * ({@code <prefix>changes.<region>}), instead of in this process. {@link #build()} creates the
         * topics, so the cluster must be reachable then.
         */
        public Builder kafka(String bootstrapServers, String topicPrefix) {
            this.kafkaBootstrap = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            this.topicPrefix = Objects.requireNonNull(topicPrefix, "topicPrefix");
            return this;
        }

        /**
         * How changes are delivered: {@link ChangeReconciler#ORDINARY} (the default) applies each; a
         * {@link io.unitas.playground.store.ShopReconciler} reconciles the ones that crossed a promotion instead.
         */
        public Builder reconciler(ChangeReconciler reconciler) {
            this.reconciler = Objects.requireNonNull(reconciler, "reconciler");
            return this;
        }

        /** Adds stores to replicate between; every pair of distinct stores gets a link each way. */
        public Builder stores(RegionalStore... stores) {
            this.stores.addAll(List.of(stores));
            return this;
        }

        /** The clock that decides when a change is due and measures lag; the stores' clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The delay of every link not given its own. */
        public Builder delay(Duration delay) {
            this.delay = nonNegative("delay", delay);
            return this;
        }

        /** The delay of the link from {@code from} to {@code to}. */
        public Builder delay(Region from, Region to, Duration delay) {
            delays.put(List.of(from, to), nonNegative("delay of " + from + "->" + to, delay));
            return this;
        }

        /** How often background rounds run. */
        public Builder pollInterval(Duration pollInterval) {
            if (pollInterval.isNegative() || pollInterval.isZero()) {
                throw new IllegalArgumentException("poll_interval: " + pollInterval + " (expected: > 0)");
            }
            this.pollInterval = pollInterval;
            return this;
        }

        /** The most changes read from one origin per link and round. */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1) {
                throw new IllegalArgumentException("batch_size: " + batchSize + " (expected: >= 1)");
            }
            this.batchSize = batchSize;
            return this;
        }

        /**
         * Builds the replicator; rounds run only when asked or after {@link Replicator#start()} (which also starts the
         * Kafka receivers).
         */
        public Replicator build() {
            Map<Region, RegionalStore> byRegion = new LinkedHashMap<>();
            for (RegionalStore store : stores) {
                if (byRegion.put(store.region(), store) != null) {
                    throw new IllegalArgumentException("stores: two for region " + store.region()
                                                       + " (expected: one per region)");
                }
            }
            for (List<Region> link : delays.keySet()) {
                if (!byRegion.containsKey(link.get(0)) || !byRegion.containsKey(link.get(1))) {
                    throw new IllegalArgumentException("delay of " + link.get(0) + "->" + link.get(1)
                                                       + ": unknown region (expected one of: " + byRegion.keySet()
                                                       + ")");
                }
            }
            if (kafkaBootstrap != null) {
                return new KafkaReplicator(List.copyOf(byRegion.values()), clock, delay, Map.copyOf(delays),
                                           pollInterval, batchSize, reconciler, kafkaBootstrap, topicPrefix);
            }
            return new EmbeddedReplicator(List.copyOf(byRegion.values()), clock, delay, Map.copyOf(delays),
                                          pollInterval, batchSize, reconciler);
        }

        private static Duration nonNegative(String what, Duration delay) {
            if (delay.isNegative()) {
                throw new IllegalArgumentException(what + ": " + delay + " (expected: >= 0)");
            }
            return delay;
        }
    }
}
