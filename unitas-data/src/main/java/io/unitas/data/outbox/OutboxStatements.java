package io.unitas.data.outbox;

import io.unitas.core.Region;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Checks the transaction an outbox append joins, and checks and binds the service's own write statement given to
 * {@link Outbox#writeAndAppend}.
 */
final class OutboxStatements {

    private static final Pattern WRITE = Pattern.compile("(?is)\\s*(insert|update|delete)\\b.*");
    private static final Pattern RETURNING = Pattern.compile("(?i)\\breturning\\b");

    private OutboxStatements() {}

    /**
     * {@code sql} without surrounding blanks, when it is one {@code INSERT}, {@code UPDATE} or {@code DELETE}
     * without {@code RETURNING} (the outbox adds its own).
     */
    static String checkedWrite(String sql) {
        Objects.requireNonNull(sql, "sql");
        String statement = sql.strip();
        if (!WRITE.matcher(statement).matches()) {
            throw new IllegalArgumentException("sql: " + abbreviate(statement) + " (expected: one INSERT, UPDATE or"
                                               + " DELETE)");
        }
        if (statement.endsWith(";")) {
            statement = statement.substring(0, statement.length() - 1).stripTrailing();
        }
        if (statement.indexOf(';') >= 0) {
            throw new IllegalArgumentException("sql: " + abbreviate(statement) + " (expected: one statement, no ';')");
        }
        if (RETURNING.matcher(statement).find()) {
            throw new IllegalArgumentException("sql: " + abbreviate(statement) + " (expected: no RETURNING clause;"
                                               + " the outbox adds its own)");
        }
        return statement;
    }

    /** Refuses a connection in auto-commit mode: a change is appended in the transaction of the write it belongs to. */
    static void requireTransaction(Connection transaction, Region origin) throws SQLException {
        if (transaction.getAutoCommit()) {
            throw new IllegalStateException("outbox of " + origin + ": connection in auto-commit mode (expected:"
                                            + " the transaction of the write the change belongs to)");
        }
    }

    /** Binds {@code parameters} from index {@code first} on and returns the next index. */
    static int bind(PreparedStatement ps, int first, List<?> parameters) throws SQLException {
        Objects.requireNonNull(parameters, "parameters");
        int at = first;
        for (Object parameter : parameters) {
            ps.setObject(at++, parameter);
        }
        return at;
    }

    private static String abbreviate(String sql) {
        String oneLine = sql.replaceAll("\\s+", " ");
        return "'" + (oneLine.length() > 80 ? oneLine.substring(0, 77) + "..." : oneLine) + "'";
    }
}
