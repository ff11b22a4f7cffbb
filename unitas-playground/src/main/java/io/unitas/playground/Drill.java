package io.unitas.playground;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.ObjLongConsumer;

/**
 * A drill: virtual users register, log in, add to cart and check out against a running {@link Playground}
 * (through the gateways in unitas mode; straight to the shops a DNS-like switch hands out in naive mode), with
 * retries that may land in another region, while a {@link Scenario}'s fault is injected and recovered; then the
 * invariants are counted once replication has caught up.
 */
public interface Drill {

    /** A builder; the scenario is required. */
    static Builder builder() {
        return new Builder();
    }

    /** Runs the drill against {@code playground}, whose shops must run in the drill's mode. */
    DrillResult run(Playground playground);

    /** Collects the settings of a {@link Drill}. */
    final class Builder {
        Scenario scenario;
        boolean naive;
        Duration duration = Duration.ofSeconds(40);
        int users = 8;
        Duration visitEvery = Duration.ofMillis(250);
        Consumer<String> progress = line -> { };
        ObjLongConsumer<DrillPhase> phases = (phase, atMillis) -> { };
        LongSupplier ticker = System::nanoTime;
        long seed = 1;

        private Builder() {}

        /** The fault to inject; not one that runs on processes only ({@link Scenario#processesOnly}). */
        public Builder scenario(Scenario scenario) {
            if (Objects.requireNonNull(scenario, "scenario").processesOnly()) {
                throw new IllegalArgumentException(scenario.id() + ": runs on processes only (expected: --processes)");
            }
            this.scenario = scenario;
            return this;
        }

        /**
         * Run as the seed's team would have: clients follow a DNS-like switch an operator flips a twentieth of
         * the run after the fault, which takes effect a TTL (another twentieth) later, and call the region's shops
         * directly; the playground's shops must be {@link ShopMode#NAIVE}.
         */
        public Builder naive(boolean naive) {
            this.naive = naive;
            return this;
        }

        /** The whole drill (default 40 s): fault at 30%, recovery at 70%. At least 5 s. */
        public Builder duration(Duration duration) {
            if (duration.compareTo(Duration.ofSeconds(5)) < 0) {
                throw new IllegalArgumentException("duration: " + duration + " (expected: >= 5s)");
            }
            this.duration = duration;
            return this;
        }

        /** Concurrent virtual users (default 8). */
        public Builder users(int users) {
            if (users < 1 || users > 1000) {
                throw new IllegalArgumentException("users: " + users + " (expected: 1..1000)");
            }
            this.users = users;
            return this;
        }

        /**
         * How often each virtual user starts a visit (log in, add to cart, check out; default 250 ms): the same
         * offered load for unitas and the naive setup, so the fault window's counts compare availability, not how
         * many requests each setup's path can push through the machine. A visit that runs long is followed by the
         * next at once, never by a burst that makes up for it.
         */
        public Builder visitEvery(Duration visitEvery) {
            if (visitEvery.isNegative() || visitEvery.compareTo(Duration.ofSeconds(10)) > 0) {
                throw new IllegalArgumentException("visit every: " + visitEvery + " (expected: 0 to 10s)");
            }
            this.visitEvery = visitEvery;
            return this;
        }

        /**
         * The seed of the virtual users' draws (default 1): drills with the same seed offer the same visits (new or
         * returning users, their home regions, items, lost responses) in either mode.
         */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Where progress lines go (fault injected, recovered, waiting for replication). */
        public Builder progress(Consumer<String> progress) {
            this.progress = Objects.requireNonNull(progress, "progress");
            return this;
        }

        /**
         * Told of every {@link DrillPhase} as the drill enters it, with the drill's milliseconds since the load
         * started (the same clock as {@link DrillResult#faultAtMillis()}).
         */
        public Builder phases(ObjLongConsumer<DrillPhase> phases) {
            this.phases = Objects.requireNonNull(phases, "phases");
            return this;
        }

        /**
         * The drill's clock, in nanoseconds (default {@link System#nanoTime}): every time in the result (fault,
         * recovery, failover, the timeline) is measured on it.
         */
        public Builder ticker(LongSupplier ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** The drill, ready to run. */
        public Drill build() {
            Objects.requireNonNull(scenario, "scenario");
            return playground -> DrillRun.run(this, playground);
        }
    }
}
