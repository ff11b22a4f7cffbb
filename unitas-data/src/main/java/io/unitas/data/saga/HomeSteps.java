package io.unitas.data.saga;

import io.unitas.core.Region;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.WriteFences;
import io.unitas.data.Home;
import io.unitas.data.HomeResolver;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Runs a saga step's write in the home region of the key it touches, wherever the coordinator runs: the key's unit
 * and home come from the data layer's {@link HomeResolver} (so a switchover that moves the unit moves the step with
 * it), and the write goes to that region's store, applied once ({@link SagaSteps#once}).
 *
 * <p>A step never writes into a fenced unit. While the key's unit is fenced (a switchover moving its data) the step
 * waits, up to {@link Builder#fenceWait}, and looks the home up again each time, since the unit may come back in
 * another region. Past the bound an execution is refused ({@link StepRefused}: the saga compensates the steps before
 * it) and a compensation fails ({@link UnitFenced}: retried with the coordinator's backoff, then stuck).
 *
 * <pre>{@code
 * HomeSteps homes = HomeSteps.builder()
 *         .homes(resolver)                                   // key -> unit and home region
 *         .stores(region -> Optional.ofNullable(byRegion.get(region)))
 *         .fences(() -> routingState.current().fences())
 *         .build();
 * StepAction debit = step -> homes.write(step, "alice", c -> add(c, "alice", -30));
 * }</pre>
 */
public final class HomeSteps {

    /** Waits between two looks at a fence; a test hook replaces it to move a controlled clock instead. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    /** Thrown by a compensation whose unit stayed fenced past the wait: nothing was written; it is retried. */
    public static final class UnitFenced extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String unit;

        UnitFenced(String unit, String message) {
            super(message, null, false, false);
            this.unit = unit;
        }

        /** The fenced unit. */
        public String unit() {
            return unit;
        }
    }

    private final HomeResolver homes;
    private final Function<Region, Optional<DataSource>> stores;
    private final Supplier<WriteFences> fences;
    private final Duration fenceWait;
    private final Duration poll;
    private final Clock clock;
    private final Sleeper sleeper;

    private HomeSteps(Builder b) {
        this.homes = b.homes;
        this.stores = b.stores;
        this.fences = b.fences;
        this.fenceWait = b.fenceWait;
        this.poll = b.poll;
        this.clock = b.clock;
        this.sleeper = b.sleeper;
    }

    /** A builder; {@link Builder#homes} and {@link Builder#stores} are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** The longest a step waits for its unit's fence to lift. */
    public Duration fenceWait() {
        return fenceWait;
    }

    /**
     * Runs {@code work} once for {@code step} in the store of {@code key}'s home region, in a transaction of its own,
     * after waiting out a fence of its unit; returns the home it ran in.
     *
     * @throws StepRefused  when the key has no unit, or an execution's unit stayed fenced past the wait
     * @throws UnitFenced   when a compensation's unit stayed fenced past the wait
     * @throws SQLException from the store; the coordinator retries the step
     */
    public Home write(StepContext step, String key, SagaSteps.SqlWork work) throws SQLException, InterruptedException {
        Home home = unfencedHome(step, key);
        DataSource store = stores.apply(home.region()).orElseThrow(() -> new IllegalStateException(
                "saga " + step.sagaId() + ": " + step.step() + ": no store for region " + home.region().id()
                + ", home of '" + key + "' (expected: a DataSource for every region a step writes to)"));
        try (Connection c = store.getConnection()) {
            c.setAutoCommit(false);
            try {
                SagaSteps.once(c, step, clock, work);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
        return home;
    }

    /** The key's home once its unit is not fenced, looked up again after every wait. */
    Home unfencedHome(StepContext step, String key) throws InterruptedException {
        long deadline = clock.millis() + fenceWait.toMillis();
        while (true) {
            Home home = homes.home(key);
            if (!home.found()) {
                throw new StepRefused("'" + key + "': " + home.problem() + " (expected: a key of a unit)");
            }
            // Any fence stops a step, a throttle too: a saga can wait where a user's request could not. A fence that
            // lands between this look and the commit is the gateway's race too; the switchover drains the measured
            // lag after fencing, so such a write still reaches the unit's next home.
            FencePolicy fence = fences.get().fences().get(home.unit());
            if (fence == null) {
                return home;
            }
            long left = deadline - clock.millis();
            if (left <= 0) {
                String message = "unit " + home.unit() + " (home of '" + key + "') fenced for longer than the step's"
                                 + " wait of " + fenceWait + "; nothing written";
                throw step.compensation() ? new UnitFenced(home.unit(), message) : new StepRefused(message);
            }
            sleeper.sleep(Duration.ofMillis(Math.min(left, poll.toMillis())));
        }
    }

    /** Collects the settings of {@link HomeSteps}. */
    public static final class Builder {
        private HomeResolver homes;
        private Function<Region, Optional<DataSource>> stores;
        private Supplier<WriteFences> fences = WriteFences::none;
        private Duration fenceWait = Duration.ofSeconds(5);
        private Duration poll = Duration.ofMillis(100);
        private Clock clock = Clock.systemUTC();
        private Sleeper sleeper = d -> Thread.sleep(d.toMillis());

        private Builder() {}

        /** Where a key is at home now: its unit and region. */
        public Builder homes(HomeResolver homes) {
            this.homes = Objects.requireNonNull(homes, "homes");
            return this;
        }

        /** The store of each region a step may write to (unitas's migrations run there). */
        public Builder stores(Function<Region, Optional<DataSource>> stores) {
            this.stores = Objects.requireNonNull(stores, "stores");
            return this;
        }

        /** The write fences in force now (the routing state's); default none. */
        public Builder fences(Supplier<WriteFences> fences) {
            this.fences = Objects.requireNonNull(fences, "fences");
            return this;
        }

        /**
         * The longest a step waits for its unit's fence to lift (default 5 s); it must be shorter than the step's
         * timeout, or the timeout ends the wait as an error instead of a refusal.
         */
        public Builder fenceWait(Duration fenceWait) {
            this.fenceWait = Objects.requireNonNull(fenceWait, "fenceWait");
            return this;
        }

        /** How often a waiting step looks at the fence again (default 100 ms). */
        public Builder pollEvery(Duration poll) {
            this.poll = Objects.requireNonNull(poll, "poll");
            return this;
        }

        /** The clock of the wait and of the steps' records. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Test hook: how a waiting step waits. */
        Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        /**
         * The steps' runner.
         *
         * @throws IllegalArgumentException naming every setting that is missing or wrong
         */
        public HomeSteps build() {
            List<String> problems = new ArrayList<>();
            if (homes == null) {
                problems.add("homes: missing (expected: a HomeResolver, the key's unit and home region)");
            }
            if (stores == null) {
                problems.add("stores: missing (expected: the DataSource of each region a step writes to)");
            }
            if (fenceWait.isNegative()) {
                problems.add("fenceWait: " + fenceWait + " (expected: >= 0)");
            }
            if (poll.isZero() || poll.isNegative()) {
                problems.add("pollEvery: " + poll + " (expected: > 0)");
            }
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException(String.join("; ", problems));
            }
            return new HomeSteps(this);
        }
    }
}
