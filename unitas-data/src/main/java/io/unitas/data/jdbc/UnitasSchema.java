package io.unitas.data.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * unitas's tables, created and upgraded by numbered SQL files shipped in this jar and recorded with their SHA-256 in
 * {@code unitas_schema_history}. Kept apart from the service's own migration tool (Flyway, Liquibase, ...): unitas
 * never reads or writes that tool's history table, and the service's never sees unitas's files.
 */
public final class UnitasSchema {

    /** The migrations, in order; a file once released is never edited (its checksum is checked on every start). */
    static final List<String> MIGRATIONS = List.of("V1__unitas_tables.sql", "V2__outbox_positions.sql",
                                                   "V3__idempotency_claim_token.sql", "V4__unit_moves.sql",
                                                   "V5__idempotency_response_headers.sql", "V6__sagas.sql",
                                                   "V7__merge_state.sql", "V8__reconcile_passes.sql");

    private static final String HISTORY = "CREATE TABLE IF NOT EXISTS unitas_schema_history ("
                                          + "version INTEGER PRIMARY KEY, script VARCHAR(200) NOT NULL,"
                                          + " checksum VARCHAR(64) NOT NULL, installed_at BIGINT NOT NULL)";
    private static final String UNIQUE_VIOLATION = "23505";
    private static final String DUPLICATE_TABLE = "42P07";
    private static final String DUPLICATE_OBJECT = "42710";

    private UnitasSchema() {}

    /**
     * Applies the migrations {@code dataSource} has not run yet, each in one transaction (atomic on PostgreSQL), and
     * returns the versions it applied. Safe to call from several processes at once: a version is applied once.
     *
     * @throws IllegalStateException when a recorded migration's checksum differs from the file shipped, or a
     *                               migration fails (naming the script and the database's message)
     */
    public static List<Integer> migrate(DataSource dataSource, Clock clock) {
        Map<Integer, Script> scripts = scripts();
        List<Integer> applied = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            createHistory(c);
            for (Script script : scripts.values()) {
                if (apply(c, script, clock)) {
                    applied.add(script.version());
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_schema_history: cannot migrate: " + e.getMessage(), e);
        }
        return List.copyOf(applied);
    }

    private static void createHistory(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(HISTORY);
        } catch (SQLException e) {
            // PostgreSQL: two sessions creating the same table "if not exists" at once can both pass the check; the
            // loser fails on the catalog's unique index, as a duplicate table or as a duplicate of the table's row
            // type, and the table is there.
            if (!List.of(UNIQUE_VIOLATION, DUPLICATE_TABLE, DUPLICATE_OBJECT).contains(e.getSQLState())) {
                throw e;
            }
        }
    }

    /** The versions recorded as applied in {@code dataSource}, in order. */
    public static List<Integer> appliedVersions(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT version FROM unitas_schema_history ORDER BY version")) {
            List<Integer> versions = new ArrayList<>();
            while (rs.next()) {
                versions.add(rs.getInt(1));
            }
            return List.copyOf(versions);
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_schema_history: cannot read: " + e.getMessage(), e);
        }
    }

    private static boolean apply(Connection c, Script script, Clock clock) throws SQLException {
        String recorded = recordedChecksum(c, script.version());
        if (recorded == null) {
            c.setAutoCommit(false);
            try {
                // The history row first: a second process migrating at the same time waits on its key, then fails
                // with a unique violation and finds the version applied.
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO unitas_schema_history"
                                                               + " (version, script, checksum, installed_at)"
                                                               + " VALUES (?, ?, ?, ?)")) {
                    ps.setInt(1, script.version());
                    ps.setString(2, script.name());
                    ps.setString(3, script.checksum());
                    ps.setLong(4, clock.millis());
                    ps.executeUpdate();
                }
                try (Statement s = c.createStatement()) {
                    for (String statement : script.statements()) {
                        s.execute(statement);
                    }
                }
                c.commit();
                return true;
            } catch (SQLException e) {
                c.rollback();
                if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
                    throw new IllegalStateException(script.name() + ": " + e.getMessage(), e);
                }
                recorded = recordedChecksum(c, script.version());
            } finally {
                c.setAutoCommit(true);
            }
        }
        if (!script.checksum().equals(recorded)) {
            throw new IllegalStateException("unitas_schema_history: version " + script.version() + " has checksum "
                                            + recorded + " (expected: " + script.checksum() + " of " + script.name()
                                            + "; a migration already applied here was changed)");
        }
        return false;
    }

    private static String recordedChecksum(Connection c, int version) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT checksum FROM unitas_schema_history WHERE version = ?")) {
            ps.setInt(1, version);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    static Map<Integer, Script> scripts() {
        Map<Integer, Script> scripts = new LinkedHashMap<>();
        for (String name : MIGRATIONS) {
            Script script = Script.load(name);
            if (script.version() != scripts.size() + 1) {
                throw new IllegalStateException(name + ": version " + script.version() + " (expected: "
                                                + (scripts.size() + 1) + ")");
            }
            scripts.put(script.version(), script);
        }
        return scripts;
    }

    /** One numbered SQL file: {@code V<version>__<description>.sql}. */
    record Script(int version, String name, String text, String checksum) {

        static Script load(String name) {
            try (InputStream in = UnitasSchema.class.getResourceAsStream(name)) {
                Objects.requireNonNull(in, () -> name + ": not found beside " + UnitasSchema.class.getName());
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                int version = Integer.parseInt(name.substring(1, name.indexOf("__")));
                return new Script(version, name, text, sha256(text));
            } catch (IOException e) {
                throw new UncheckedIOException(name + ": cannot read", e);
            }
        }

        /** The statements, split at semicolons ending a line; {@code --} comment lines dropped. */
        List<String> statements() {
            List<String> statements = new ArrayList<>();
            StringBuilder current = new StringBuilder();
            for (String line : text.split("\n")) {
                String trimmed = line.strip();
                if (trimmed.isEmpty() || trimmed.startsWith("--")) {
                    continue;
                }
                current.append(line).append('\n');
                if (trimmed.endsWith(";")) {
                    statements.add(current.substring(0, current.lastIndexOf(";")));
                    current.setLength(0);
                }
            }
            if (!current.toString().isBlank()) {
                statements.add(current.toString());
            }
            return statements;
        }

        private static String sha256(String text) {
            try {
                return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                                                        .digest(text.getBytes(StandardCharsets.UTF_8)));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 missing from this JVM", e);
            }
        }
    }
}
