package io.unitas.data.merge;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.PnCounter;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeHandler;
import io.unitas.data.outbox.Outbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** The example of docs/data.md, "Merge on the apply path", compiled with the tests so it stays true. */
final class MergeDocExample {

    static final MergedEntity<PnCounter> LIKES = MergedEntity.of("likes", MergePolicy.counter(), Codec.counter())
            .materializedBy((tx, postId, state) -> {
                try (PreparedStatement ps = tx.prepareStatement(
                        "INSERT INTO likes (post_id, n) VALUES (?, ?)"
                        + " ON CONFLICT (post_id) DO UPDATE SET n = EXCLUDED.n")) {
                    ps.setString(1, postId);
                    ps.setLong(2, state.value());
                    ps.executeUpdate();
                }
            });

    static ChangeApplier wire(Region region, DataSource dataSource, Map<String, ChangeHandler> myHandlers,
                              Clock clock, MeterRegistry registry) {
        MergeStore merged = MergeStore.jdbc(region, dataSource, List.of(LIKES), clock, registry);
        Map<String, ChangeHandler> handlers = new HashMap<>(myHandlers);
        handlers.putAll(merged.handlers());
        return ChangeApplier.jdbc(region, dataSource, handlers, clock, registry);
    }

    static void like(MergeStore merged, Outbox outbox, DataSource dataSource, String unit, String postId)
            throws SQLException {
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            merged.write(tx, outbox, LIKES, unit, postId,
                         state -> state.orElse(PnCounter.zero()).add(merged.region().id(), 1));
            tx.commit();
        }
    }

    private MergeDocExample() {}
}
