package io.unitas.data.outbox;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
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

    /**
     * As {@link #jdbc(Region, DataSource, Map, Clock, MeterRegistry)}, reconciling after promotions: before each
     * batch it records in this region's {@link MoveLog} every unit whose home in {@code homes} (the live unit-to-region
     * map) differs from the last one seen, so a change that crossed such a move ({@link MoveLog#crossed}) is never
     * written by its handler: in the unit's new home it goes to {@code reconciler} (a {@link ReconcilingHandler}, or
     * one per type with {@link CrossedChangeHandler#byType}), anywhere else it is counted applied without effect. A
     * batch whose moves cannot be recorded (the database is down) is not applied: it is delivered again.
     */
    static ChangeApplier jdbc(Region region, DataSource dataSource, Map<String, ChangeHandler> handlers, Clock clock,
                              MeterRegistry registry, Supplier<Map<String, Region>> homes,
                              CrossedChangeHandler reconciler) {
        return new JdbcChangeApplier(region, dataSource, handlers, clock, registry,
                                     MoveLog.jdbc(region, dataSource, clock),
                                     java.util.Objects.requireNonNull(homes, "homes"),
                                     java.util.Objects.requireNonNull(reconciler, "reconciler"));
    }

    /** The region this applier writes into. */
    Region region();

    /** Applies {@code change} if it is the next of its (origin, unit), and says what happened. Never throws for I/O. */
    ApplyResult apply(ChangeEnvelope change);

    /**
     * Applies {@code changes}, each unit's in their order (units may be mixed), each unit's as far as they go, and
     * says what happened: per unit, a result for each change up to its first not consumed (a gap, a refusal, an
     * unavailable database), which is that unit's last result. One unit's stop never holds another. The JDBC applier
     * writes them in one transaction (per unit again, should one be refused). Never throws for I/O.
     */
    default List<ApplyResult> applyAll(List<ChangeEnvelope> changes) {
        List<ApplyResult> results = new ArrayList<>();
        Set<String> held = new HashSet<>();
        for (ChangeEnvelope change : changes) {
            String stream = change.origin() + "/" + change.unit();
            if (held.contains(stream)) {
                continue;
            }
            ApplyResult result = apply(change);
            results.add(result);
            if (!result.consumed()) {
                held.add(stream);
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
