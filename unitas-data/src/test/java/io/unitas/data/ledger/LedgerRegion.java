package io.unitas.data.ledger;

import io.unitas.core.Region;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.store.StoreResult;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/**
 * One region of a small ledger service with its own schema: a table of balances, in an embedded database that
 * also holds the data layer's {@code unitas_idempotency} table. The database can be switched off, as a region's
 * database that stops answering; nothing of the demo shop is in sight.
 */
final class LedgerRegion {

    private static final AtomicLong DATABASES = new AtomicLong();

    final Region region;
    final IdempotencyStore idempotency;
    private final DataSource dataSource;
    private final AtomicBoolean reachable = new AtomicBoolean(true);

    LedgerRegion(Region region, Clock clock) {
        this.region = region;
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:ledger-" + region.id() + "-" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        // Every connection goes through the switch, so the service's reads and the data layer's alike fail.
        this.dataSource = (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && !reachable.get()) {
                        throw new SQLException(region + ": connection refused", "08001");
                    }
                    try {
                        return method.invoke(h2, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ledger_balances (account_id VARCHAR(64) PRIMARY KEY, cents BIGINT NOT NULL,"
                      + " as_of BIGINT NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        this.idempotency = IdempotencyStore.jdbc(region, dataSource, clock);
    }

    /** Switches the database off or on. */
    void reachable(boolean reachable) {
        this.reachable.set(reachable);
    }

    /** The balance of {@code account}, as this region's copy has it. */
    StoreResult<Balance> balance(String account) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT cents, as_of FROM ledger_balances WHERE account_id = ?")) {
            ps.setString(1, account);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                       ? StoreResult.ok(new Balance(account, rs.getLong(1), Instant.ofEpochMilli(rs.getLong(2))))
                       : StoreResult.notFound(region, "account", account);
            }
        } catch (SQLException e) {
            return StoreResult.unavailable(region, e.getMessage());
        }
    }

    /** Stores {@code balance}: a write in the home, or a replicated copy elsewhere. */
    StoreResult<Balance> put(Balance balance) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement update = c.prepareStatement(
                     "UPDATE ledger_balances SET cents = ?, as_of = ? WHERE account_id = ?")) {
            update.setLong(1, balance.cents());
            update.setLong(2, balance.asOf().toEpochMilli());
            update.setString(3, balance.account());
            if (update.executeUpdate() == 0) {
                try (PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO ledger_balances (cents, as_of, account_id) VALUES (?, ?, ?)")) {
                    insert.setLong(1, balance.cents());
                    insert.setLong(2, balance.asOf().toEpochMilli());
                    insert.setString(3, balance.account());
                    insert.executeUpdate();
                }
            }
            return StoreResult.ok(balance);
        } catch (SQLException e) {
            return StoreResult.unavailable(region, e.getMessage());
        }
    }

    /** A balance and the time the region holding it knew it to be current. */
    record Balance(String account, long cents, Instant asOf) {}
}
