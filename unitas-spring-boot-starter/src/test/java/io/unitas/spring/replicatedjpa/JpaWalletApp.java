package io.unitas.spring.replicatedjpa;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;

import io.unitas.spring.UnitasChangeHandler;
import io.unitas.spring.UnitasOutbox;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A replicated service on JPA (Hibernate) and Spring Data: the account is saved through its repository and its change
 * appended in the same {@code @Transactional} transaction; the other regions' changes are written by a
 * {@link UnitasChangeHandler} bean with the applier's JDBC transaction.
 */
@SpringBootApplication
public class JpaWalletApp {

    @Bean
    UnitasChangeHandler accountChanges() {
        return UnitasChangeHandler.of("account", (tx, change) -> {
            String[] parts = new String(change.payload(), StandardCharsets.UTF_8).split(" ");
            try (PreparedStatement ps = tx.prepareStatement(
                    "INSERT INTO account (user_id, balance, version) VALUES (?, ?, ?) ON CONFLICT (user_id)"
                    + " DO UPDATE SET balance = EXCLUDED.balance, version = EXCLUDED.version")) {
                ps.setString(1, change.key());
                ps.setLong(2, Long.parseLong(parts[0]));
                ps.setLong(3, Long.parseLong(parts[1]));
                ps.executeUpdate();
            }
        });
    }

    /** Sets balances, each with its change. */
    @Service
    public static class Balances {
        private final Accounts accounts;
        private final UnitasOutbox outbox;

        Balances(Accounts accounts, UnitasOutbox outbox) {
            this.accounts = accounts;
            this.outbox = outbox;
        }

        /**
         * Sets {@code userId}'s balance, saved through the repository, and appends the change; {@code afterAppend} runs
         * before the commit (a test holds the transaction open there). A balance below zero fails after the append.
         */
        @Transactional
        public Account set(String userId, long balance, Runnable afterAppend) {
            Account account = accounts.findById(userId).orElseGet(() -> new Account(userId));
            account.set(balance);
            accounts.save(account);
            outbox.append(userId, "account", userId, account.encode());
            afterAppend.run();
            if (balance < 0) {
                throw new IllegalArgumentException("balance: " + balance + " (expected: >= 0)");
            }
            return account;
        }
    }
}
