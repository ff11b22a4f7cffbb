package io.unitas.spring.cached;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import io.unitas.spring.UnitasChangeHandler;
import io.unitas.spring.UnitasEntity;
import io.unitas.spring.UnitasOutbox;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A wallet service whose reads go through {@code @Cacheable("wallet")}: the starter's two-level cache, declared by
 * nothing but {@code unitas.cache.*}, the wallet's staleness budget (3 s) its freshness bound.
 */
@SpringBootApplication
@EnableCaching
public class CachedWalletApp {

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
                           .version(Wallet::version).stalenessBudget(Duration.ofSeconds(3)).build();
    }

    @Bean
    UnitasChangeHandler walletChanges(UnitasEntity<Wallet> walletEntity) {
        return UnitasChangeHandler.of(walletEntity, (tx, key, wallet) -> {
            try (PreparedStatement ps = tx.prepareStatement(
                    "INSERT INTO wallet (user_id, balance, version) VALUES (?, ?, ?) ON CONFLICT (user_id)"
                    + " DO UPDATE SET balance = EXCLUDED.balance, version = EXCLUDED.version")) {
                ps.setString(1, key);
                ps.setLong(2, wallet.balance());
                ps.setLong(3, wallet.version());
                ps.executeUpdate();
            }
        });
    }

    /** The repository: its reads from the database, its deposits with their changes. */
    @Service
    public static class Wallets {
        private final JdbcTemplate jdbc;
        private final UnitasOutbox outbox;
        private final AtomicInteger loads = new AtomicInteger();

        Wallets(JdbcTemplate jdbc, UnitasOutbox outbox) {
            this.jdbc = jdbc;
            this.outbox = outbox;
            jdbc.execute("CREATE TABLE IF NOT EXISTS wallet (user_id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL,"
                         + " version BIGINT NOT NULL)");
        }

        /** How many reads reached the database. */
        public int loads() {
            return loads.get();
        }

        public Optional<Wallet> find(String userId) {
            loads.incrementAndGet();
            return jdbc.query("SELECT balance, version FROM wallet WHERE user_id = ?",
                              (r, i) -> new Wallet(userId, r.getLong(1), r.getLong(2)), userId).stream().findFirst();
        }

        @Transactional
        public Wallet deposit(UnitasEntity<Wallet> walletEntity, String userId, long amount) {
            Wallet w = jdbc.queryForObject(
                    "INSERT INTO wallet (user_id, balance, version) VALUES (?, ?, 1) ON CONFLICT (user_id)"
                    + " DO UPDATE SET balance = wallet.balance + EXCLUDED.balance, version = wallet.version + 1"
                    + " RETURNING balance, version", (r, i) -> new Wallet(userId, r.getLong(1), r.getLong(2)),
                    userId, amount);
            outbox.append(walletEntity, userId, w);
            return w;
        }
    }

    /** The service's cached read. */
    @Service
    public static class WalletReads {
        private final Wallets wallets;

        WalletReads(Wallets wallets) {
            this.wallets = wallets;
        }

        @Cacheable("wallet")
        public Wallet read(String userId) {
            return wallets.find(userId).orElse(null);
        }
    }
}
