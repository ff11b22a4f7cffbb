package io.unitas.data.outbox;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A small service of its own schema, not the shop's: ledger entries per account, each account in a unit. It writes
 * an entry and its change in one transaction, and applies other regions' entries with {@link #HANDLER}.
 */
final class Ledger {

    static final String ENTRY = "ledger_entry";

    /** Writes a replicated entry as it came: insert, or overwrite the same entry id; a batch in two round trips. */
    static final ChangeHandler HANDLER = new Handler();

    /** How many changes {@link #HANDLER} has written through its batch method (not one by one). */
    static final AtomicLong BATCHED = new AtomicLong();

    private static final class Handler implements ChangeHandler {

        @Override
        public void apply(Connection tx, ChangeEnvelope change) throws SQLException {
            String[] parts = fields(change);
            try (PreparedStatement update = tx.prepareStatement(
                    "UPDATE ledger_entries SET account = ?, amount = ? WHERE entry_id = ?")) {
                update.setString(1, parts[0]);
                update.setLong(2, Long.parseLong(parts[1]));
                update.setString(3, change.key());
                if (update.executeUpdate() == 1) {
                    return;
                }
            }
            try (PreparedStatement insert = tx.prepareStatement(
                    "INSERT INTO ledger_entries (entry_id, account, amount) VALUES (?, ?, ?)")) {
                insert.setString(1, change.key());
                insert.setString(2, parts[0]);
                insert.setLong(3, Long.parseLong(parts[1]));
                insert.executeUpdate();
            }
        }

        /** The last change of each entry wins: one batch of updates, then one of inserts for the entries not there. */
        @Override
        public void applyAll(Connection tx, List<ChangeEnvelope> changes) throws SQLException {
            Map<String, ChangeEnvelope> last = new LinkedHashMap<>();
            changes.forEach(c -> last.put(c.key(), c));
            List<ChangeEnvelope> entries = new ArrayList<>(last.values());
            int[] updated;
            try (PreparedStatement update = tx.prepareStatement(
                    "UPDATE ledger_entries SET account = ?, amount = ? WHERE entry_id = ?")) {
                for (ChangeEnvelope change : entries) {
                    String[] parts = fields(change);
                    update.setString(1, parts[0]);
                    update.setLong(2, Long.parseLong(parts[1]));
                    update.setString(3, change.key());
                    update.addBatch();
                }
                updated = update.executeBatch();
            }
            try (PreparedStatement insert = tx.prepareStatement(
                    "INSERT INTO ledger_entries (entry_id, account, amount) VALUES (?, ?, ?)")) {
                boolean any = false;
                for (int i = 0; i < entries.size(); i++) {
                    if (updated[i] == 0) {
                        String[] parts = fields(entries.get(i));
                        insert.setString(1, entries.get(i).key());
                        insert.setString(2, parts[0]);
                        insert.setLong(3, Long.parseLong(parts[1]));
                        insert.addBatch();
                        any = true;
                    }
                }
                if (any) {
                    insert.executeBatch();
                }
            }
            BATCHED.addAndGet(changes.size());
        }

        private static String[] fields(ChangeEnvelope change) {
            return new String(change.payload(), StandardCharsets.UTF_8).split("\\|");
        }
    }

    private final DataSource db;
    private final Outbox outbox;

    Ledger(DataSource db, Outbox outbox) {
        this.db = db;
        this.outbox = outbox;
    }

    static void createSchema(DataSource db) {
        execute(db, "CREATE TABLE ledger_entries (entry_id VARCHAR(100) PRIMARY KEY, account VARCHAR(100) NOT NULL,"
                    + " amount BIGINT NOT NULL)");
    }

    static void execute(DataSource db, String sql) {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Writes an entry of {@code account} (in {@code unit}) with its change, committing both. */
    ChangeEnvelope record(String unit, String entryId, String account, long amount) {
        return write(unit, entryId, account, amount, true);
    }

    /** The service writes, then changes its mind: rolls the entry and its change back. */
    void recordThenRollBack(String unit, String entryId, String account, long amount) {
        write(unit, entryId, account, amount, false);
    }

    private ChangeEnvelope write(String unit, String entryId, String account, long amount, boolean commit) {
        try (Connection tx = db.getConnection()) {
            tx.setAutoCommit(false);
            try (PreparedStatement ps = tx.prepareStatement(
                    "INSERT INTO ledger_entries (entry_id, account, amount) VALUES (?, ?, ?)")) {
                ps.setString(1, entryId);
                ps.setString(2, account);
                ps.setLong(3, amount);
                ps.executeUpdate();
            }
            ChangeEnvelope change = outbox.append(tx, unit, ENTRY, entryId,
                                                  (account + "|" + amount).getBytes(StandardCharsets.UTF_8));
            if (commit) {
                tx.commit();
            } else {
                tx.rollback();
            }
            return change;
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The entry ids stored in {@code db}, sorted. */
    static List<String> entries(DataSource db) {
        List<String> ids = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT entry_id FROM ledger_entries ORDER BY entry_id")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        return ids;
    }

    /** How many rows {@code sql} (a {@code SELECT COUNT(*)}) counts in {@code db}. */
    static long count(DataSource db, String sql) {
        try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }
}
