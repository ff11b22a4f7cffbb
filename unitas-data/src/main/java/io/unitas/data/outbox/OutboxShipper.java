package io.unitas.data.outbox;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;

/**
 * Moves one region's outbox to the other regions through a {@link ChangeTransport}, measures every unit's lag in
 * each of them, and trims what all have applied. Rounds run explicitly ({@link #shipDue()}, as tests and drills do)
 * or on a background loop ({@link #start}) whose failures and stalls show in {@link #status()}, meters and logs.
 *
 * <p>Meters: {@code unitas.data.unit.lag{unit,target}} (seconds; Prometheus
 * {@code unitas_data_unit_lag_seconds}), {@code unitas.data.outbox.rounds{origin}},
 * {@code unitas.data.outbox.round.failures{origin}}, {@code unitas.data.outbox.round.age{origin}} (seconds since the
 * last successful round).
 */
public interface OutboxShipper extends AutoCloseable {

    /** How many changes of one unit one publish carries. */
    int BATCH = 500;

    /**
     * A shipper of {@code outbox} to {@code targets} (the other regions) through {@code transport}. A round longer
     * ago than {@code staleAfter} makes {@link #status()} unhealthy.
     */
    static OutboxShipper create(Outbox outbox, ChangeTransport transport, Collection<Region> targets, Clock clock,
                                MeterRegistry registry, Duration staleAfter) {
        return new LoopingShipper(outbox, transport, targets, clock, registry, staleAfter);
    }

    /**
     * One round: publishes the changes not yet published, flushes the transport, reads what each target
     * acknowledged, trims what all applied, and measures the lag. Rounds are serialized.
     *
     * @throws IllegalStateException when the outbox cannot be read (the round counts as failed)
     */
    void shipDue();

    /** The lag of every unit in every target as of the last round. */
    UnitLagReport lag();

    /** Whether rounds run and succeed and no stream is stopped, as of now by the clock. */
    ShipperStatus status();

    /**
     * Runs {@link #shipDue()} every {@code interval} on a daemon thread until {@link #close()}: a round starts
     * {@code interval} after the one before started, or as soon as it ended when it took longer.
     */
    void start(Duration interval);

    /** Stops the background loop, if started. */
    @Override
    void close();
}
