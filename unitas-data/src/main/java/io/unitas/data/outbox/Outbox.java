package io.unitas.data.outbox;

import io.unitas.core.Region;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A region's transactional outbox: a service appends each change in the transaction of the write itself, so the
 * write and its change commit together or not at all. One unit's changes get gapless sequences committed in order;
 * writers of one unit wait for each other's commit, writers of different units do not.
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
     * returns it with its sequence; it becomes visible to shipping when the caller commits, and vanishes with a
     * rollback. Until then other writers of {@code unit} wait.
     *
     * @throws SQLException          as the caller's own statements would (the caller rolls back)
     * @throws IllegalStateException when {@code transaction} is in auto-commit mode
     */
    ChangeEnvelope append(Connection transaction, String unit, String entityType, String key, byte[] payload)
            throws SQLException;

    /** The last committed sequence of every unit with changes here. */
    Map<String, Long> lastSequences();

    /** Up to {@code limit} committed changes of {@code unit} after {@code afterSequence}, in order. */
    List<ChangeEnvelope> after(String unit, long afterSequence, int limit);

    /** When the oldest change of {@code unit} after {@code afterSequence} was written; empty when there is none. */
    Optional<Instant> oldestAfter(String unit, long afterSequence);

    /** Deletes {@code unit}'s changes up to {@code throughSequence} (every region has them) and returns how many. */
    int trim(String unit, long throughSequence);
}
