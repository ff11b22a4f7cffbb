package io.unitas.control.client.state;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.UnitRules;

/** The one owner of a follower's current {@link RoutingState}; feeds publish into it, requests read from it. */
public final class StateHolder implements Supplier<RoutingState> {

    private final AtomicReference<RoutingState> current = new AtomicReference<>();
    private final LongSupplier ticker;
    private final Clock clock;
    private final Duration holdDown;

    /** Meters throttles on {@code ticker}; tells when a region turned healthy by {@code clock}. */
    public StateHolder(LongSupplier ticker, Clock clock, Duration holdDown) {
        this.ticker = ticker;
        this.clock = clock;
        this.holdDown = holdDown;
    }

    @Override
    public RoutingState get() {
        return current.get();
    }

    /** Publishes a new snapshot, built from validated parts. */
    public void publish(long revision, UnitRules rules, HealthSnapshot health, WriteFences fences) {
        publish(revision, rules.topology(), rules, health, fences);
    }

    /** Publishes a new snapshot over {@code topology}; {@code rules} is {@code null} for a follower without units. */
    public void publish(long revision, Topology topology, UnitRules rules, HealthSnapshot health,
                        WriteFences fences) {
        current.updateAndGet(previous -> RoutingState.of(revision, topology, rules, health, fences, previous,
                                                         ticker, clock.millis(), holdDown));
    }
}
