package io.unitas.example.wallet;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.RecordedMove;
import io.unitas.spring.UnitasOutbox;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wallets of this region's database, in plain JDBC; the table is created at start when it is missing. With
 * replication on, each deposit appends the wallet as it is after it to this region's outbox, in the deposit's own
 * transaction: the change commits with the deposit or not at all.
 */
public final class Wallets {

    /** The entity type the regions exchange wallets as (the {@code UnitasEntity} and the change handler's). */
    static final String TYPE = "wallet";

    private static final Logger log = LoggerFactory.getLogger(Wallets.class);

    private final DataSource db;
    private final UnitasOutbox outbox; // null: replication off

    Wallets(DataSource db, UnitasOutbox outbox) {
        this.db = db;
        this.outbox = outbox;
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS wallet (user_id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL,"
                      + " version BIGINT NOT NULL)");
            // every deposit applied, with the key it came with: a key in it twice is a user charged twice
            s.execute("CREATE TABLE IF NOT EXISTS wallet_ledger (id BIGSERIAL PRIMARY KEY, user_id VARCHAR(64) NOT NULL,"
                      + " deposit_key VARCHAR(200), amount BIGINT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now())");
            // the keys deposits were charged under, this region's and those the other regions' changes carried
            s.execute("CREATE TABLE IF NOT EXISTS wallet_keys (user_id VARCHAR(64) NOT NULL, deposit_key VARCHAR(200)"
                      + " NOT NULL, PRIMARY KEY (user_id, deposit_key))");
        } catch (SQLException e) {
            throw new IllegalStateException("wallet: cannot create its table: " + e.getMessage(), e);
        }
    }

    /**
     * Writes another region's deposit as its change carries it ({@link #apply(Connection, String, Wallet)}) and
     * remembers the key it was charged under, so that the key is not charged again here once the user's unit has
     * moved here (its idempotency record stays in the old home's database).
     */
    static void apply(Connection transaction, ChangeEnvelope change) throws SQLException {
        apply(transaction, change.key(), Wallet.decode(change.payload()));
        Wallet.Deposit deposit = Wallet.deposit(change.payload());
        if (deposit != null && deposit.key() != null) {
            remember(transaction, change.key(), deposit.key());
        }
    }

    /**
     * Decides, here in the user's new home, a deposit that the old home acknowledged but had not shipped when the
     * user's unit moved here (a failover), in the applier's transaction. One this region has not charged is added to
     * the balance here (its ledger line stays in the region that charged it). One whose key was charged here as well
     * (its answer was lost and the user sent it again here) is already in the balance: the second charge is refunded,
     * a ledger line of minus its amount, so the user pays once. What changed is appended to the outbox, so every
     * region, the old home included, converges on this region's wallet.
     */
    void reconcile(Connection transaction, ChangeEnvelope change, RecordedMove move) throws SQLException {
        Wallet.Deposit deposit = Wallet.deposit(change.payload());
        if (deposit == null) {
            throw new IllegalArgumentException("wallet " + change.key() + ": change " + change.id() + " from "
                                               + change.origin() + " carries no deposit (expected: amount [key])");
        }
        String userId = change.key();
        if (deposit.key() == null || remember(transaction, userId, deposit.key())) {
            Wallet after = add(transaction, userId, deposit.amount());
            append(transaction, userId, after, deposit.amount(), deposit.key());
            log.info("wallet {}: {}'s deposit {} ({}) was not shipped before unit {} moved here: added", userId,
                     change.origin(), deposit.key(), deposit.amount(), move.unit());
        } else {
            ledger(transaction, userId, deposit.key(), -deposit.amount());
            log.info("wallet {}: deposit {} ({}) was charged in {} and again here after unit {} moved: refunded here",
                     userId, deposit.key(), deposit.amount(), change.origin(), move.unit());
        }
    }

    /** Records {@code key} as charged for the user; false when it already was (here or by a shipped change). */
    private static boolean remember(Connection transaction, String userId, String key) throws SQLException {
        try (PreparedStatement ps = transaction.prepareStatement(
                "INSERT INTO wallet_keys (user_id, deposit_key) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
            ps.setString(1, userId);
            ps.setString(2, key);
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * Writes another region's wallet as its change carries it, with the applier's transaction: inserted when it is
     * new here, replaced when the change is newer (a higher version), left as it is otherwise, so a late or repeated
     * change never takes a wallet back.
     */
    static void apply(Connection transaction, String userId, Wallet wallet) throws SQLException {
        try (PreparedStatement ps = transaction.prepareStatement(
                "INSERT INTO wallet (user_id, balance, version) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE"
                + " SET balance = EXCLUDED.balance, version = EXCLUDED.version WHERE wallet.version < EXCLUDED.version")) {
            ps.setString(1, userId);
            ps.setLong(2, wallet.balance());
            ps.setLong(3, wallet.version());
            ps.executeUpdate();
        }
    }

    /** The user's wallet in this region's database, if it is here. */
    public Optional<Wallet> find(String userId) {
        try (Connection c = db.getConnection();
             PreparedStatement q = c.prepareStatement("SELECT balance, version FROM wallet WHERE user_id = ?")) {
            q.setString(1, userId);
            try (ResultSet r = q.executeQuery()) {
                return r.next() ? Optional.of(new Wallet(userId, r.getLong(1), r.getLong(2))) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("wallet: " + e.getMessage(), e);
        }
    }

    /**
     * Adds {@code amount} to the user's balance (a new wallet for a first deposit) and writes it to the ledger with
     * the key it came with, and appends the wallet's change with the key to the outbox (replication on), in one
     * transaction; returns the wallet after it. A key already charged for the user (in another region, before the
     * user's unit moved here: its change carried the key) is not charged again: the wallet is returned as it is.
     */
    Wallet deposit(String userId, long amount, String key) {
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            if (key != null && !remember(c, userId, key)) {
                c.rollback();
                return find(userId).orElseThrow(() -> new IllegalStateException(
                        "wallet: " + userId + ": key " + key + " charged, but no wallet here"));
            }
            try {
                Wallet after = add(c, userId, amount);
                ledger(c, userId, key, amount);
                append(c, userId, after, amount, key);
                c.commit();
                return after;
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("wallet: " + e.getMessage(), e);
        }
    }

    /** Adds {@code amount} to the user's balance (a new wallet for a first deposit); the wallet after it. */
    private static Wallet add(Connection transaction, String userId, long amount) throws SQLException {
        try (PreparedStatement u = transaction.prepareStatement(
                "INSERT INTO wallet (user_id, balance, version) VALUES (?, ?, 1) ON CONFLICT (user_id)"
                + " DO UPDATE SET balance = wallet.balance + EXCLUDED.balance, version = wallet.version + 1"
                + " RETURNING balance, version")) {
            u.setString(1, userId);
            u.setLong(2, amount);
            try (ResultSet r = u.executeQuery()) {
                r.next();
                return new Wallet(userId, r.getLong(1), r.getLong(2));
            }
        }
    }

    /** A line of the ledger of this region: a deposit charged here, or (negative) one refunded here. */
    private static void ledger(Connection transaction, String userId, String key, long amount) throws SQLException {
        try (PreparedStatement l = transaction.prepareStatement(
                "INSERT INTO wallet_ledger (user_id, deposit_key, amount) VALUES (?, ?, ?)")) {
            l.setString(1, userId);
            l.setString(2, key);
            l.setLong(3, amount);
            l.executeUpdate();
        }
    }

    /** The wallet after a deposit, on the outbox with the deposit (replication on), in the deposit's transaction. */
    private void append(Connection transaction, String userId, Wallet after, long amount, String key)
            throws SQLException {
        if (outbox != null) {
            outbox.outbox().append(transaction, outbox.unitOf(userId), TYPE, userId, after.encode(amount, key));
        }
    }
}
