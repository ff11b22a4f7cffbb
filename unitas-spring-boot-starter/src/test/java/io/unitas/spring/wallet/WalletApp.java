package io.unitas.spring.wallet;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import io.unitas.data.DataReadiness;
import io.unitas.data.ReadinessResult;
import io.unitas.spring.Idempotent;
import io.unitas.spring.UnitasEntity;
import io.unitas.spring.UnitasReadiness;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A wallet service as a team would write it, one process per region, each with its own PostgreSQL database: a
 * {@code wallet} table, deposits that are {@link Idempotent} per user (the path's {@code userId}), and reads of a
 * wallet through {@link UnitasReadiness}, with the wallet declared once as a {@link UnitasEntity} the home-read server
 * serves too.
 */
@SpringBootApplication
public class WalletApp {

    /** A wallet: its user, balance and version (one more per deposit). */
    public record Wallet(String userId, long balance, long version) {

        /** The bytes regions exchange: {@code userId balance version}. */
        byte[] encode() {
            return (userId + " " + balance + " " + version).getBytes(StandardCharsets.UTF_8);
        }

        static Wallet decode(byte[] payload) {
            String[] parts = new String(payload, StandardCharsets.UTF_8).split(" ");
            return new Wallet(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]));
        }

        /** Another build's bytes: {@code userId,balance,version}, which {@link #decode} cannot read. */
        byte[] encodeCsv() {
            return (userId + "," + balance + "," + version).getBytes(StandardCharsets.UTF_8);
        }

        static Wallet decodeCsv(byte[] payload) {
            String[] parts = new String(payload, StandardCharsets.UTF_8).split(",");
            return new Wallet(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]));
        }
    }

    /** The routing state, with the unit map a test may change as a switchover would. */
    @Bean
    MovableRoutingState routingState() {
        return new MovableRoutingState();
    }

    @Bean
    DataSource walletDb(@Value("${wallet.db-url}") String url) throws SQLException {
        PGSimpleDataSource pg = new PGSimpleDataSource();
        pg.setUrl(url);
        pg.setUser("postgres");
        try (Connection c = pg.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS wallet (user_id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL,"
                      + " version BIGINT NOT NULL)");
        }
        return pg;
    }

    @Bean
    Wallets wallets(DataSource walletDb) {
        return new Wallets(walletDb);
    }

    /** The wallet, declared once: its type name, local read and codec, for both the reading and the serving side. */
    @Bean
    UnitasEntity<Wallet> walletEntity(Wallets wallets, @Value("${wallet.codec:text}") String codec) {
        UnitasEntity.Builder<Wallet> wallet = UnitasEntity.builder("wallet", wallets::find).version(Wallet::version);
        // wallet.codec=csv: a build of this service that changed its codec
        return ("csv".equals(codec) ? wallet.codec(Wallet::encodeCsv, Wallet::decodeCsv).codecId("wallet-csv/1")
                                    : wallet.codec(Wallet::encode, Wallet::decode).codecId("wallet-text/1"))
                .build();
    }

    /** The repository: plain JDBC on this region's database. */
    public static final class Wallets {
        private final DataSource db;

        Wallets(DataSource db) {
            this.db = db;
        }

        public Optional<Wallet> find(String userId) {
            try (Connection c = db.getConnection();
                 PreparedStatement q = c.prepareStatement("SELECT balance, version FROM wallet WHERE user_id = ?")) {
                q.setString(1, userId);
                try (ResultSet r = q.executeQuery()) {
                    return r.next() ? Optional.of(new Wallet(userId, r.getLong(1), r.getLong(2))) : Optional.empty();
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }

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
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
    }

    @RestController
    static class Endpoints {
        private final Wallets wallets;
        private final DataReadiness<String, Wallet> reads;

        Endpoints(Wallets wallets, UnitasReadiness readiness, UnitasEntity<Wallet> wallet) {
            this.wallets = wallets;
            this.reads = readiness.entity(wallet).build();
        }

        @Idempotent(owner = "{userId}")
        @PostMapping("/wallets/{userId}/deposits")
        ResponseEntity<Map<String, Object>> deposit(@PathVariable String userId,
                                                    @RequestBody Map<String, Object> deposit) {
            Wallet w = wallets.deposit(userId, ((Number) deposit.get("amount")).longValue());
            return ResponseEntity.created(URI.create("/wallets/" + userId))
                                 .body(Map.of("user", userId, "balance", w.balance(), "version", w.version()));
        }

        @GetMapping("/wallets/{userId}")
        ResponseEntity<Map<String, Object>> wallet(@PathVariable String userId) {
            ReadinessResult<Wallet> read = reads.read(userId);
            return UnitasReadiness.orNotReady(read)
                    .map(w -> ResponseEntity.ok(Map.<String, Object>of("balance", w.balance(),
                                                                       "from", read.outcome().name())))
                    .orElseGet(() -> ResponseEntity.notFound().build());
        }
    }
}
