package io.unitas.example.wallet;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import javax.sql.DataSource;

/** The wallets of this region's database, in plain JDBC; the table is created at start when it is missing. */
public final class Wallets {

    private final DataSource db;

    Wallets(DataSource db) {
        this.db = db;
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS wallet (user_id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL,"
                      + " version BIGINT NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException("wallet: cannot create its table: " + e.getMessage(), e);
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

    /** Adds {@code amount} to the user's balance (a new wallet for a first deposit); returns the wallet after it. */
    Wallet deposit(String userId, long amount) {
        try (Connection c = db.getConnection();
             PreparedStatement u = c.prepareStatement(
                     "INSERT INTO wallet (user_id, balance, version) VALUES (?, ?, 1) ON CONFLICT (user_id)"
                     + " DO UPDATE SET balance = wallet.balance + EXCLUDED.balance, version = wallet.version + 1"
                     + " RETURNING balance, version")) {
            u.setString(1, userId);
            u.setLong(2, amount);
            try (ResultSet r = u.executeQuery()) {
                r.next();
                return new Wallet(userId, r.getLong(1), r.getLong(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("wallet: " + e.getMessage(), e);
        }
    }
}
