package io.unitas.health;

import java.time.Clock;
import java.util.function.Consumer;

import io.unitas.core.health.HealthReport;

/**
 * Runs a region's checks on their schedules, keeps each check's anti-flap state, and rolls them up into the
 * region's {@link HealthReport}. The agent is the one owner of that mutable state; everything it hands out is an
 * immutable snapshot.
 */
public interface HealthAgent extends AutoCloseable {

    /** Starts probing every check of {@code config} at once; {@code clock} stamps results and reports. */
    static HealthAgent start(HealthConfig config, Clock clock) {
        DefaultHealthAgent agent = new DefaultHealthAgent(config, clock);
        agent.start();
        return agent;
    }

    /** The configuration the agent runs. */
    HealthConfig config();

    /**
     * The region's health rolled up now, carrying the sequence number of the last change. Lag, latency and score
     * are as fresh as the last probe; a check whose probe went silent is down here even before any change.
     */
    HealthReport current();

    /**
     * Calls {@code listener} with the current report at once, then with every change (a new sequence number: a
     * change of healthy, writable, reasons or any check's verdict), in order, on the agent's thread. Listeners
     * must return quickly.
     */
    void subscribe(Consumer<HealthReport> listener);

    /** Stops probing and releases the probes. */
    @Override
    void close();
}
