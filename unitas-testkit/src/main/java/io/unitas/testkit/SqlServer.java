package io.unitas.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/** A running SQL server of a fixture: where it listens and a way to run statements on it as an administrator. */
public interface SqlServer {

    /** The TCP port on 127.0.0.1. */
    int port();

    /** The JDBC URL of the fixture's database. */
    String jdbcUrl();

    /** The administrator's connection properties ({@code user}, {@code password}). */
    Properties admin();

    /** The URL a person would write ({@code postgresql://postgres@127.0.0.1:5433/postgres}). */
    String uri();

    /** Runs each statement in its own auto-committed transaction. */
    default void execute(String... sql) {
        try (Connection c = DriverManager.getConnection(jdbcUrl(), admin()); Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(uri() + ": " + e.getMessage(), e);
        }
    }

    /** The first column of the first row of {@code sql}, as text ({@code null} for SQL NULL or no row). */
    default String queryOne(String sql) {
        try (Connection c = DriverManager.getConnection(jdbcUrl(), admin()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(uri() + ": " + e.getMessage(), e);
        }
    }
}
