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
        try (PreparedStatement ps = connection.prepareStatement(
                "INSERT INTO unitas_saga_applied (saga_id, step) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
            ps.setString(1, context.sagaId());
            ps.setString(2, context.step());
            ps.executeUpdate();
        }
        boolean executed;
        boolean compensated;
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT executed_at, compensated_at FROM unitas_saga_applied WHERE saga_id = ? AND step = ?"
                + " FOR UPDATE")) {
            ps.setString(1, context.sagaId());
            ps.setString(2, context.step());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                rs.getLong(1);
                executed = !rs.wasNull();
                rs.getLong(2);
                compensated = !rs.wasNull();
            }
        }
        if (compensated || (!context.compensation() && executed)) {
            return false;
        }
        try (PreparedStatement ps = connection.prepareStatement(
                "UPDATE unitas_saga_applied SET " + (context.compensation() ? "compensated_at" : "executed_at")
                + " = ? WHERE saga_id = ? AND step = ?")) {
            ps.setLong(1, clock.millis());
            ps.setString(2, context.sagaId());
            ps.setString(3, context.step());
            ps.executeUpdate();
        }
        if (context.compensation() && !executed) {
            return false; // nothing applied here to undo; the mark keeps a late execution from applying
        }
        work.run(connection);
        return true;
    }
}
