package io.unitas.example.wallet;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.RecordedMove;
import io.unitas.data.reconcile.UnitMove;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The repository in eu's database, as after cn's unit moved to eu: a deposit cn charged and shipped (its change carries
 * its key) is not charged again when the same key reaches eu, whose idempotency store never saw it.
 */
class WalletsTest {

    private static final SqlServer PG = PostgresCluster.shared().primary();
    private static final String DB = "wallets_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private static HikariDataSource eu;

    @BeforeAll
    static void start() {
        PG.execute("CREATE DATABASE " + DB);
        eu = new HikariDataSource();
        eu.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + DB);
        eu.setDataSourceProperties(PG.admin());
        new Wallets(eu, null); // creates the tables
    }

    @AfterAll
    static void stop() {
        if (eu != null) {
            eu.close();
        }
        PG.execute("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
    }

    @Test
    void aKeyChargedInTheOldHome_andShipped_isNotChargedAgainInTheNewHome() throws Exception {
        Wallets wallets = new Wallets(eu, null);
        try (Connection tx = eu.getConnection()) { // cn's deposit of 5 under k-7, shipped to eu
            Wallets.apply(tx, change("7", "7 5 1 5 k-7"));
        }

        Wallet again = wallets.deposit("7", 5, "k-7"); // the key sent again, now served in eu
        Wallet next = wallets.deposit("7", 2, "k-8");

        assertThat(again).as("the key sent again: the wallet as it is").isEqualTo(new Wallet("7", 5, 1));
        assertThat(next).as("a new key is charged").isEqualTo(new Wallet("7", 7, 2));
        assertThat(query("SELECT COUNT(*) FROM wallet_ledger WHERE deposit_key = 'k-7'"))
                .as("no ledger line in eu for cn's key").isEqualTo("0");
    }

    @Test
    void aChangeWithoutAKey_isStillAWallet_andANewerOneWins() throws Exception {
        try (Connection tx = eu.getConnection()) {
            Wallets.apply(tx, change("9", "9 4 2"));
            Wallets.apply(tx, change("9", "9 3 1 3 k-9"));
        }

        assertThat(new Wallets(eu, null).find("9")).contains(new Wallet("9", 4, 2));
        assertThat(query("SELECT COUNT(*) FROM wallet_keys WHERE deposit_key = 'k-9'"))
                .as("the older change's key is known all the same").isEqualTo("1");
    }

    @Test
    void aDepositTheOldHomeDidNotShip_notChargedHere_isAddedHere_withoutALedgerLineHere() throws Exception {
        Wallets wallets = new Wallets(eu, null);
        try (Connection tx = eu.getConnection()) {
            Wallets.apply(tx, change("11", "11 5 1 5 k-1")); // shipped before cn died
        }
        wallets.deposit("11", 2, "k-2");                       // eu, the new home, serves the user

        try (Connection tx = eu.getConnection()) {             // cn's deposit of 4, acknowledged but never shipped
            wallets.reconcile(tx, change("11", "11 9 2 4 k-3"), MOVE);
        }

        assertThat(wallets.find("11")).contains(new Wallet("11", 11, 3));
        assertThat(query("SELECT COUNT(*) FROM wallet_keys WHERE user_id = '11' AND deposit_key = 'k-3'"))
                .as("the key is known here: sent again, it is not charged").isEqualTo("1");
        assertThat(wallets.deposit("11", 4, "k-3")).isEqualTo(new Wallet("11", 11, 3));
        assertThat(query("SELECT COUNT(*) FROM wallet_ledger WHERE deposit_key = 'k-3'"))
                .as("its ledger line stays in cn, where it was charged").isEqualTo("0");
    }

    @Test
    void aDepositTheOldHomeDidNotShip_chargedHereAgain_isRefundedHere_andTheBalanceKeepsItOnce() throws Exception {
        Wallets wallets = new Wallets(eu, null);
        try (Connection tx = eu.getConnection()) {
            Wallets.apply(tx, change("12", "12 5 1 5 k-1"));
        }
        wallets.deposit("12", 4, "k-3");                       // its answer lost in cn, the key sent again in eu

        try (Connection tx = eu.getConnection()) {
            wallets.reconcile(tx, change("12", "12 9 2 4 k-3"), MOVE);
        }

        assertThat(wallets.find("12")).contains(new Wallet("12", 9, 2));
        assertThat(query("SELECT string_agg(amount::text, ',' ORDER BY id) FROM wallet_ledger WHERE user_id = '12'"))
                .as("charged here, then refunded here: with cn's line the user paid once").isEqualTo("4,-4");
    }

    @Test
    void aCrossedChangeWithoutADeposit_isRefused_namingTheChange() throws Exception {
        try (Connection tx = eu.getConnection()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                    () -> new Wallets(eu, null).reconcile(tx, change("13", "13 4 2"), MOVE))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("carries no deposit");
        }
    }

    private static final RecordedMove MOVE = new RecordedMove(
            new UnitMove("u-cn", Region.of("cn"), Region.of("eu"), Instant.parse("2026-12-05T10:00:00Z")), 1);

    private static ChangeEnvelope change(String user, String payload) {
        return new ChangeEnvelope("u-cn", Region.of("cn"), 1, Wallets.TYPE, user,
                                  payload.getBytes(StandardCharsets.UTF_8), Instant.now());
    }

    private static String query(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + DB,
                                                        PG.admin());
             Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            return r.next() ? r.getString(1) : null;
        }
    }
}
