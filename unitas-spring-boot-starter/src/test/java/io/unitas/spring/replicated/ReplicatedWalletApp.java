package io.unitas.spring.replicated;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.util.Optional;

import io.unitas.spring.UnitasChangeHandler;
import io.unitas.spring.UnitasEntity;
import io.unitas.spring.UnitasOutbox;
import io.unitas.spring.wallet.MovableRoutingState;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A wallet service replicated between regions as a team would write it on {@code @Transactional} and
 * {@code JdbcTemplate}: its DataSource from {@code spring.datasource.*}, each deposit's change appended in the deposit's
 * transaction, the other regions' changes written by a {@link UnitasChangeHandler} bean. Every applied change leaves a
 * row in {@code wallet_applied}, so a test sees an order or a repeat.
 */
@SpringBootApplication
public class ReplicatedWalletApp {

    /** A wallet: its user, balance and version (one more per deposit). */
    public record Wallet(String userId, long balance, long version) {

        byte[] encode() {
            return (userId + " " + balance + " " + version).getBytes(StandardCharsets.UTF_8);
        }

        static Wallet decode(byte[] payload) {
            String[] parts = new String(payload, StandardCharsets.UTF_8).split(" ");
            return new Wallet(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]));
        }
    }

    @Bean
    UnitasEntity<Wallet> walletEntity(Wallets wallets) {
        return UnitasEntity.builder("wallet", wallets::find).codec(Wallet::encode, Wallet::decode)
                           .version(Wallet::version).stalenessBudget(java.time.Duration.ofSeconds(5)).build();
    }

    /**
     * The routing state of the test files, whose units a test moves ({@code wallet.movable: true}); otherwise the
     * starter reads the files itself.
     */
    @Bean
    @ConditionalOnProperty(name = "wallet.movable", havingValue = "true")
    MovableRoutingState movableRoutingState() {
        return new MovableRoutingState();
    }

    /**
     * Another region's wallet, written as it carries it, and logged. With {@code wallet.reconciler: true}, a wallet the
     * old home had not shipped when its unit moved here is only noted in {@code wallet_crossed}, with its origin.
     */
    @Bean
    UnitasChangeHandler walletChanges(UnitasEntity<Wallet> walletEntity,
                                      @Value("${wallet.reconciler:false}") boolean reconciler) {
        UnitasChangeHandler handler = walletHandler(walletEntity);
        return !reconciler ? handler : handler.reconciledBy((tx, change, move) -> {
            try (PreparedStatement ps = tx.prepareStatement(
                    "INSERT INTO wallet_crossed (user_id, payload, origin) VALUES (?, ?, ?)")) {
                ps.setString(1, change.key());
                ps.setString(2, new String(change.payload(), StandardCharsets.UTF_8));
                ps.setString(3, change.origin().id());
                ps.executeUpdate();
            }
        });
    }

    private static UnitasChangeHandler walletHandler(UnitasEntity<Wallet> walletEntity) {
        return UnitasChangeHandler.of(walletEntity, (tx, key, wallet) -> {
            try (PreparedStatement ps = tx.prepareStatement(
                    "INSERT INTO wallet (user_id, balance, version) VALUES (?, ?, ?) ON CONFLICT (user_id)"
                    + " DO UPDATE SET balance = EXCLUDED.balance, version = EXCLUDED.version")) {
                ps.setString(1, key);
                ps.setLong(2, wallet.balance());
                ps.setLong(3, wallet.version());
                ps.executeUpdate();
            }
            try (PreparedStatement ps = tx.prepareStatement(
                    "INSERT INTO wallet_applied (user_id, version) VALUES (?, ?)")) {
                ps.setString(1, key);
                ps.setLong(2, wallet.version());
                ps.executeUpdate();
            }
        });
    }

    /** Notes: a second entity type, whose handler a region may lack ({@code wallet.note-handler: false}). */
    @Bean
    @ConditionalOnProperty(name = "wallet.note-handler", matchIfMissing = true)
    UnitasChangeHandler noteChanges(Wallets wallets) {
        return UnitasChangeHandler.of("note", (tx, change) -> {
            try (PreparedStatement ps = tx.prepareStatement("INSERT INTO note (id, text) VALUES (?, ?)")) {
                ps.setString(1, change.key());
                ps.setString(2, new String(change.payload(), StandardCharsets.UTF_8));
                ps.executeUpdate();
            }
        });
    }

    /** The repository and its transactions. */
    @Service
    public static class Wallets {
        private final JdbcTemplate jdbc;
        private final UnitasOutbox outbox;

        Wallets(JdbcTemplate jdbc, UnitasOutbox outbox) {
            this.jdbc = jdbc;
            this.outbox = outbox;
            jdbc.execute("CREATE TABLE IF NOT EXISTS wallet (user_id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL,"
                         + " version BIGINT NOT NULL)");
            jdbc.execute("CREATE TABLE IF NOT EXISTS wallet_applied (n BIGSERIAL PRIMARY KEY, user_id VARCHAR(64)"
                         + " NOT NULL, version BIGINT NOT NULL)");
            jdbc.execute("CREATE TABLE IF NOT EXISTS note (id VARCHAR(64) PRIMARY KEY, text TEXT NOT NULL)");
            jdbc.execute("CREATE TABLE IF NOT EXISTS wallet_crossed (user_id VARCHAR(64) NOT NULL, payload TEXT NOT NULL,"
                         + " origin VARCHAR(64) NOT NULL)");
        }

        public Optional<Wallet> find(String userId) {
            return jdbc.query("SELECT balance, version FROM wallet WHERE user_id = ?",
                              (r, i) -> new Wallet(userId, r.getLong(1), r.getLong(2)), userId).stream().findFirst();
        }

        /**
         * Adds {@code amount} to the wallet and appends its change; an amount below zero fails after the append, so
         * the transaction, change included, rolls back.
         */
        @Transactional
        public Wallet deposit(UnitasEntity<Wallet> walletEntity, String userId, long amount) {
            Wallet w = jdbc.queryForObject(
                    "INSERT INTO wallet (user_id, balance, version) VALUES (?, ?, 1) ON CONFLICT (user_id)"
                    + " DO UPDATE SET balance = wallet.balance + EXCLUDED.balance, version = wallet.version + 1"
                    + " RETURNING balance, version", (r, i) -> new Wallet(userId, r.getLong(1), r.getLong(2)),
                    userId, amount);
            outbox.append(walletEntity, userId, w);
            if (amount < 0) {
                throw new IllegalArgumentException("amount: " + amount + " (expected: >= 0)");
            }
            return w;
        }

        /** Writes a note of {@code userId} and appends its change. */
        @Transactional
        public void note(String userId, String id, String text) {
            jdbc.update("INSERT INTO note (id, text) VALUES (?, ?)", id, text);
            outbox.append(userId, "note", id, text.getBytes(StandardCharsets.UTF_8));
        }
    }
}
