package io.unitas.data.saga;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;

/**
 * Makes a step's write to a store (PostgreSQL) apply once, in the caller's transaction, by the table
 * {@code unitas_saga_applied} that unitas's migrations create in that store. A retry or a recovery after a crash
 * finds the step applied and does nothing; a compensation undoes only an execution that applied; and an execution
 * that arrives after its compensation (a slow attempt overtaken by the timeout) applies nothing, because both lock
 * the step's row.
 */
public final class SagaSteps {

    private SagaSteps() {}

    /** A write in a transaction. */
    @FunctionalInterface
    public interface SqlWork {
        /** Performs the write on {@code connection}. */
        void run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} on {@code connection} if this execution or compensation has not been applied in this store,
     * and records it; returns whether {@code work} ran. The caller commits (the connection must not be in
     * auto-commit), so the record and the work commit together.
     */
    public static boolean once(Connection connection, StepContext context, Clock clock, SqlWork work)
            throws SQLException {
        if (connection.getAutoCommit()) {
            throw new IllegalArgumentException("connection: in auto-commit (expected: a transaction, so the step's"
                                               + " record and its write commit together)");
        }
        // One statement (one round trip) marks the step and locks its row, inserted or not (ON CONFLICT DO UPDATE
        // locks the row even where its WHERE is false): an execution marks an untouched row only; a compensation
        // marks any row not yet compensated, and undoes only what an execution applied here.
        if (!context.compensation()) {
            try (PreparedStatement ps = connection.prepareStatement(
                    "INSERT INTO unitas_saga_applied (saga_id, step, executed_at) VALUES (?, ?, ?)"
                    + " ON CONFLICT (saga_id, step) DO UPDATE SET executed_at = EXCLUDED.executed_at"
                    + " WHERE unitas_saga_applied.executed_at IS NULL"
                    + " AND unitas_saga_applied.compensated_at IS NULL")) {
                ps.setString(1, context.sagaId());
                ps.setString(2, context.step());
                ps.setLong(3, clock.millis());
                if (ps.executeUpdate() == 0) {
                    return false; // executed already, or compensated before this (late) execution
                }
            }
        } else {
            try (PreparedStatement ps = connection.prepareStatement(
                    "INSERT INTO unitas_saga_applied (saga_id, step, compensated_at) VALUES (?, ?, ?)"
                    + " ON CONFLICT (saga_id, step) DO UPDATE SET compensated_at = EXCLUDED.compensated_at"
                    + " WHERE unitas_saga_applied.compensated_at IS NULL RETURNING executed_at")) {
                ps.setString(1, context.sagaId());
                ps.setString(2, context.step());
                ps.setLong(3, clock.millis());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return false; // compensated already
                    }
                    rs.getLong(1);
                    if (rs.wasNull()) {
                        return false; // nothing applied here to undo; the mark keeps a late execution from applying
                    }
                }
            }
        }
        work.run(connection);
        return true;
    }
}
