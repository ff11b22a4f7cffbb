package io.unitas.data.outbox;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The receiving end of replication in one region: applies other regions' changes once each, in each unit's order,
 * and stores how far it got per (origin, unit) in the transaction that applies. Any transport delivers to it; a
 * change delivered twice, or before its predecessor, is not applied twice or early.
 */
public interface ChangeApplier {

    /**
     * An applier writing into {@code dataSource} (after migrating unitas's tables) with the service's
     * {@code handlers} by entity type. It exports {@code unitas.data.unit.stopped{origin,unit,target}} (1 while
     * that unit's stream is stopped here) to {@code registry}.
     */
    static ChangeApplier jdbc(Region region, DataSource dataSource, Map<String, ChangeHandler> handlers, Clock clock,
                              MeterRegistry registry) {
        return new JdbcChangeApplier(region, dataSource, handlers, clock, registry);
    }

    /** The region this applier writes into. */
    Region region();

    /** Applies {@code change} if it is the next of its (origin, unit), and says what happened. Never throws for I/O. */
    ApplyResult apply(ChangeEnvelope change);

    /**
     * Applies {@code changes}, one unit's from one origin in their order, as far as they go, and says what happened to
     * each up to the first not consumed (a gap, a refusal, an unavailable database), which is the last result. The
     * JDBC applier writes them in one transaction. Never throws for I/O.
     *
     * @throws IllegalArgumentException when the changes are of more than one (origin, unit)
     */
    default List<ApplyResult> applyAll(List<ChangeEnvelope> changes) {
        List<ApplyResult> results = new ArrayList<>();
        for (ChangeEnvelope change : changes) {
            ApplyResult result = apply(change);
            results.add(result);
            if (!result.consumed()) {
                break;
            }
        }
        return List.copyOf(results);
    }

    /**
     * The last sequence applied here of each unit from {@code origin}: what this region acknowledges to the sender.
     *
     * @throws IllegalStateException when the database cannot be read
     */
    Map<String, Long> positions(Region origin);

    /** The streams stopped here now, oldest first. */
    List<StoppedStream> stopped();
}
