package io.unitas.data.internal;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/**
 * What a {@link SQLException} means to unitas, by SQLSTATE, on PostgreSQL and H2 alike: the database refuses
 * writes, cannot be reached, or rejected this statement (a constraint, a missing column).
 */
public enum SqlFailure {
    /** A read-only transaction or server refused a write ({@code default_transaction_read_only}, a standby). */
    READ_ONLY,
    /** The database could not be reached, or the connection broke. */
    UNREACHABLE,
    /** The database rejected the statement itself; retrying the same statement fails the same way. */
    REJECTED;

    /** PostgreSQL and the SQL standard: read-only SQL transaction. */
    private static final String READ_ONLY_SQL_TRANSACTION = "25006";
    /** H2: the database is read-only. */
    private static final String H2_DATABASE_IS_READ_ONLY = "90097";
    /** PostgreSQL: a standby in recovery refuses writes (cannot_connect_now is 57P03 while starting). */
    private static final String CANNOT_CONNECT_NOW = "57P03";

    /** Classifies {@code e}. */
    public static SqlFailure of(SQLException e) {
        String state = e.getSQLState();
        if (READ_ONLY_SQL_TRANSACTION.equals(state) || H2_DATABASE_IS_READ_ONLY.equals(state)) {
            return READ_ONLY;
        }
        if (state == null || state.startsWith("08") || CANNOT_CONNECT_NOW.equals(state)
            || state.startsWith("53") || state.startsWith("57") || e instanceof SQLTransientConnectionException) {
            return UNREACHABLE;
        }
        return REJECTED;
    }
}
