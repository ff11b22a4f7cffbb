package io.unitas.data.outbox;

import io.unitas.core.Region;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A region's transactional outbox: a service appends each change in the transaction of the write itself, so the
 * write and its change commit together or not at all. Each change takes the region's next position; writers never
 * wait for each other in the outbox. A unit's stream is its changes in position order: two writes of one entity,
 * serialized by the service's own lock on it and each appended after its write, get positions in their commit order.
 * Reads for shipping ({@link #after(long, int)}) stop below any position an open transaction may still commit, so
 * a position that commits late is never passed over.
 */
public interface Outbox {

    /**
     * The outbox in {@code dataSource}'s {@code unitas_outbox} (PostgreSQL or H2), after migrating unitas's tables.
     * {@code dataSource} must reach the database the service writes to; the service's own connections may come
     * from another pool.
     */
    static Outbox jdbc(Region origin, DataSource dataSource, Clock clock) {
        return new JdbcOutbox(origin, dataSource, clock);
    }

    /** The region this outbox records changes of. */
    Region origin();

    /**
     * Appends a change of {@code unit} in {@code transaction}, the caller's open transaction (auto-commit off), and
     * returns it with its position ({@link ChangeEnvelope#sequence()}); it becomes visible to shipping when the caller
     * commits, and vanishes with a rollback (leaving an unused position, which no reader waits for). Append after the
     * service's own write of the entity, so the entity's lock orders its changes.
     *
     * @throws SQLException          as the caller's own statements would (the caller rolls back)
     * @throws IllegalStateException when {@code transaction} is in auto-commit mode
     */
    ChangeEnvelope append(Connection transaction, String unit, String entityType, String key, byte[] payload)
            throws SQLException;

    /**
     * Runs the service's own write, one {@code INSERT}, {@code UPDATE} or {@code DELETE} ({@code sql}, with a
     * {@code ?} for each of {@code parameters} and no {@code RETURNING}), and appends its change, in
     * {@code transaction}, the caller's open transaction, as {@link #append} does. When the statement writes no row,
     * nothing is appended. The change is appended after the statement took its rows' locks, so the entity's lock orders
     * its changes as with {@link #append} after the write.
     *
     * <p>On PostgreSQL both go in one statement, so one round trip (a data-modifying {@code WITH} around
     * {@code sql}): what a write costs the service plus a row in {@code unitas_outbox}, without the round trip of a
     * separate {@link #append}. Elsewhere (H2, in process) it runs {@code sql}, then {@link #append}. A transaction
     * that writes several statements, or whose write is not a single statement, appends with {@link #append}.
     *
     * @param parameters the values of {@code sql}'s {@code ?} in order ({@link PreparedStatement#setObject}; null for
     *                   SQL NULL)
     * @throws SQLException             as the caller's own statement would (the caller rolls back)
     * @throws IllegalArgumentException when {@code sql} is not one {@code INSERT}, {@code UPDATE} or {@code DELETE}
     *                                  without {@code RETURNING}
     * @throws IllegalStateException    when {@code transaction} is in auto-commit mode
     */
    default OutboxWrite writeAndAppend(Connection transaction, String sql, List<?> parameters, String unit,
                                       String entityType, String key, byte[] payload) throws SQLException {
        String statement = OutboxStatements.checkedWrite(sql);
        OutboxStatements.requireTransaction(transaction, origin());
        int rows;
        try (PreparedStatement ps = transaction.prepareStatement(statement)) {
            OutboxStatements.bind(ps, 1, parameters);
            rows = ps.executeUpdate();
        }
        return rows == 0 ? new OutboxWrite(0, Optional.empty())
                         : new OutboxWrite(rows, Optional.of(append(transaction, unit, entityType, key, payload)));
    }

    /**
     * Up to {@code limit} committed changes of every unit after position {@code afterPosition}, in position order, and
     * none at or beyond a position an open transaction may still commit: what the shipper reads. Their
     * {@link ChangeEnvelope#previous() previous} is 0 (the shipper chains them per unit).
     */
    List<ChangeEnvelope> after(long afterPosition, int limit);

    /**
     * When the oldest committed change of each unit after {@code afterPosition} was written, ignoring the horizon of
     * {@link #after(long, int)}: what has not been read for shipping yet, for the lag.
     */
    Map<String, Instant> oldestAfter(long afterPosition);

    /** Deletes every change up to position {@code throughPosition} (every region has them) and returns how many. */
    int trim(long throughPosition);

    /** The last committed position of every unit with changes still kept here. */
    Map<String, Long> lastSequences();

    /**
     * Up to {@code limit} committed changes of {@code unit} after position {@code afterSequence}, in order, chained
     * from {@code afterSequence}; for inspection (the shipper reads all units at once).
     */
    List<ChangeEnvelope> after(String unit, long afterSequence, int limit);

    /** When the oldest change of {@code unit} after {@code afterSequence} was written; empty when there is none. */
    Optional<Instant> oldestAfter(String unit, long afterSequence);

    /** Deletes {@code unit}'s changes up to position {@code throughSequence} and returns how many. */
    int trim(String unit, long throughSequence);
}
