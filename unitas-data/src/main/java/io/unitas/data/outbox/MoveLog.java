package io.unitas.data.outbox;

import io.unitas.core.Region;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The move ledger of the outbox path, kept durably in a region's database beside its outbox ({@code
 * unitas_unit_homes}, {@code unitas_unit_moves}): every move of a unit between homes this region saw, with how far
 * it had applied the old home's changes of that unit at the time. Fed by sampling the live unit-to-region map
 * ({@link #observe}) before each replication round, so a move is recorded before the first change that crosses it is
 * delivered; read by the {@link ChangeApplier} to hand such changes to the new home's {@link CrossedChangeHandler}
 * instead of applying them. One per region's applying process; thread-safe.
 */
public interface MoveLog {

    /** The move log in {@code dataSource} (PostgreSQL or H2) of {@code region}, after migrating unitas's tables. */
    static MoveLog jdbc(Region region, DataSource dataSource, Clock clock) {
        return new JdbcMoveLog(region, dataSource, clock);
    }

    /**
     * Records {@code unit}'s home as seen now; a home other than the last one seen is a move, recorded with this
     * region's applied position of the old home's changes of the unit. The first home seen is a starting point.
     *
     * @throws IllegalStateException when the database cannot be written (the caller tries again next round)
     */
    Optional<RecordedMove> observe(String unit, Region home);

    /** {@link #observe} for every unit of {@code homes}; returns the moves recorded now. */
    default List<RecordedMove> observeAll(Map<String, Region> homes) {
        return homes.entrySet().stream().flatMap(e -> observe(e.getKey(), e.getValue()).stream()).toList();
    }

    /** Every move of {@code unit} recorded, oldest first. */
    List<RecordedMove> moves(String unit);

    /**
     * The move that {@code change}, delivered now, crossed: its origin is the unit's home before a recorded move, its
     * position is beyond what had been applied here of that home's changes at the move, and it was written before the
     * unit came back to its origin (if it did). Empty for ordinary replication.
     */
    Optional<RecordedMove> crossed(ChangeEnvelope change);

    /** The pure rule of {@link #crossed(ChangeEnvelope)} over {@code moves} of the change's unit, oldest first. */
    static Optional<RecordedMove> crossed(List<RecordedMove> moves, ChangeEnvelope change) {
        for (int i = 0; i < moves.size(); i++) {
            RecordedMove away = moves.get(i);
            if (!away.from().equals(change.origin()) || change.sequence() <= away.shippedThrough()) {
                continue;
            }
            java.time.Instant back = null;
            for (int j = i + 1; j < moves.size() && back == null; j++) {
                if (moves.get(j).to().equals(change.origin())) {
                    back = moves.get(j).move().at();
                }
            }
            if (back == null || change.writtenAt().isBefore(back)) {
                return Optional.of(away);
            }
        }
        return Optional.empty();
    }
}
