package io.unitas.spring.saga;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import io.unitas.data.saga.HomeSteps;
import io.unitas.data.saga.SagaCoordinator;
import io.unitas.data.saga.SagaRecord;
import io.unitas.data.saga.StepContext;
import io.unitas.data.saga.StepRefused;
import io.unitas.spring.SagaStep;
import io.unitas.spring.app.MutableRoutingState;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Service;

/**
 * A credit service running in cn, with cn's and eu's account stores (one PostgreSQL database each): the transfer
 * saga declared as methods of {@link Transfers}, each step written in its account's home by {@link HomeSteps}.
 */
@SpringBootApplication
public class TransferApp {

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }

    @Bean
    DataSource cnDb(@Value("${transfer.cn-url}") String url) throws SQLException {
        return accounts(url, "('10', 100, FALSE)");
    }

    @Bean
    DataSource euDb(@Value("${transfer.eu-url}") String url) throws SQLException {
        return accounts(url, "('40', 100, FALSE), ('41', 100, TRUE)");
    }

    private static DataSource accounts(String url, String rows) throws SQLException {
        PGSimpleDataSource pg = new PGSimpleDataSource();
        pg.setUrl(url);
        pg.setUser("postgres");
        try (Connection c = pg.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id VARCHAR(20) PRIMARY KEY, credit BIGINT NOT NULL,"
                      + " closed BOOLEAN NOT NULL)");
            s.execute("INSERT INTO accounts VALUES " + rows);
        }
        return pg;
    }

    /** The transfer saga: payload {@code from,to,amount}; the payee's account may be closed (the credit refuses). */
    @Service
    public static class Transfers {
        private final HomeSteps homes;
        private final SagaCoordinator sagas;
        public volatile boolean refundFails;

        Transfers(HomeSteps homes, SagaCoordinator sagas) {
            this.homes = homes;
            this.sagas = sagas;
        }

        public SagaRecord transfer(String from, String to, long amount) {
            return sagas.start("transfer", from + "," + to + "," + amount);
        }

        // doc:begin
        @SagaStep(saga = "transfer", order = 1, compensation = "refund", timeout = "5s")
        void debit(StepContext step) throws Exception {
            String from = part(step, 0);
            long amount = Long.parseLong(part(step, 2));
            homes.write(step, from, c -> {
                if (credit(c, from) < amount) {
                    throw new StepRefused(from + ": credit below " + amount);
                }
                add(c, from, -amount);
            });
        }

        void refund(StepContext step) throws Exception {
            if (refundFails) {
                throw new SQLException("refund: the store refuses writes");
            }
            homes.write(step, part(step, 0), c -> add(c, part(step, 0), Long.parseLong(part(step, 2))));
        }

        @SagaStep(saga = "transfer", order = 2, compensation = "uncredit", timeout = "5s")
        void credit(StepContext step) throws Exception {
            String to = part(step, 1);
            homes.write(step, to, c -> {
                if (closed(c, to)) {
                    throw new StepRefused(to + ": account closed");
                }
                add(c, to, Long.parseLong(part(step, 2)));
            });
        }

        void uncredit(StepContext step) throws Exception {
            homes.write(step, part(step, 1), c -> add(c, part(step, 1), -Long.parseLong(part(step, 2))));
        }
        // doc:end

        private static String part(StepContext step, int i) {
            return step.payload().split(",")[i];
        }

        private static long credit(Connection c, String account) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("SELECT credit FROM accounts WHERE id = ? FOR UPDATE")) {
                ps.setString(1, account);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }

        private static boolean closed(Connection c, String account) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("SELECT closed FROM accounts WHERE id = ?")) {
                ps.setString(1, account);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getBoolean(1);
                }
            }
        }

        private static void add(Connection c, String account, long amount) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("UPDATE accounts SET credit = credit + ? WHERE id = ?")) {
                ps.setLong(1, amount);
                ps.setString(2, account);
                ps.executeUpdate();
            }
        }
    }
}
