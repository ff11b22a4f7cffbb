package io.unitas.spring.readiness;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import io.unitas.data.DataReadiness;
import io.unitas.data.ReadinessResult;
import io.unitas.spring.UnitasReadiness;
import io.unitas.spring.app.MutableRoutingState;
import org.h2.jdbcx.JdbcDataSource;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Servlet service in eu whose accounts live in its own database (H2, embedded) for eu's users, with copies of
 * other regions' accounts that may be missing or stale: {@code GET /accounts/{user}} reads through
 * {@link UnitasReadiness}.
 */
@SpringBootApplication
public class AccountsApp {

    /** An account: its holder's name, and up to when this copy is known to match its home's. */
    public record Account(String name, Instant syncedAt) {}

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }

    @Bean
    DataSource accountsDb() throws SQLException {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:accounts-eu-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        try (Connection c = h2.getConnection(); Statement s = c.createStatement()) {
            s.execute("create table accounts (holder varchar(64) primary key, name varchar(64), synced_at timestamp)");
            s.execute("insert into accounts values ('40', 'eu user 40', current_timestamp)");
            // a copy of a cn user's account, replicated long ago: stale
            s.execute("insert into accounts values ('13', 'cn user 13, old copy', timestamp '2000-01-01 00:00:00')");
        }
        return h2;
    }

    /** The repository: a plain JDBC read of this region's copy. */
    @Bean
    Accounts accounts(DataSource accountsDb) {
        return new Accounts(accountsDb);
    }

    public static final class Accounts {
        private final DataSource db;

        Accounts(DataSource db) {
            this.db = db;
        }

        public Optional<Account> find(String holder) {
            try (Connection c = db.getConnection();
                 PreparedStatement q = c.prepareStatement("select name, synced_at from accounts where holder = ?")) {
                q.setString(1, holder);
                try (ResultSet r = q.executeQuery()) {
                    return r.next() ? Optional.of(new Account(r.getString(1), r.getTimestamp(2).toInstant()))
                                    : Optional.empty();
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
    }

    @RestController
    static class Endpoints {
        private final DataReadiness<String, Account> accounts;

        Endpoints(UnitasReadiness readiness, Accounts repository) {
            this.accounts = readiness.entity("account", repository::find,
                            payload -> new Account(new String(payload, StandardCharsets.UTF_8), Instant.now()))
                    .freshness((holder, account) -> account.syncedAt(), Duration.ofHours(1))
                    .build();
        }

        @GetMapping("/accounts/{holder}")
        ResponseEntity<Map<String, String>> account(@PathVariable String holder) {
            ReadinessResult<Account> read = accounts.read(holder);
            return UnitasReadiness.orNotReady(read)
                    .map(a -> ResponseEntity.ok(Map.of("name", a.name(), "from", read.outcome().name())))
                    .orElseGet(() -> ResponseEntity.notFound().build());
        }
    }
}
