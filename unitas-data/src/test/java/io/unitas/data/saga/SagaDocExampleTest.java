package io.unitas.data.saga;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.saga.SagaState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The example of docs/saga.md, compiled and run here on PostgreSQL; the doc must quote it unchanged. */
class SagaDocExampleTest {

    private final Clock clock = Clock.fixed(Instant.parse("2026-12-04T10:00:00Z"), java.time.ZoneOffset.UTC);
    private final Bank bank = new Bank(clock);

    @AfterEach
    void drop() {
        bank.close();
    }

    // doc:begin
    /** Adds {@code amount} to {@code account} in {@code store}, once per saga step and direction. */
    static void add(DataSource store, StepContext step, String account, long amount) throws SQLException {
        try (Connection c = store.getConnection()) {
            c.setAutoCommit(false);
            SagaSteps.once(c, step, Clock.systemUTC(), tx -> {
                try (PreparedStatement ps = tx.prepareStatement(
                        "UPDATE accounts SET credit = credit + ? WHERE id = ?")) {
                    ps.setLong(1, amount);
                    ps.setString(2, account);
                    ps.executeUpdate();
                }
            });
            c.commit();
        }
    }

    static SagaRecord transfer(DataSource sagas, DataSource cn, DataSource eu) {
        Saga transfer = Saga.builder("transfer")
                .step("debit", Duration.ofSeconds(2),
                      step -> add(cn, step, "alice", -30),   // alice is homed in cn
                      step -> add(cn, step, "alice", 30))
                .step("credit", Duration.ofSeconds(2),
                      step -> add(eu, step, "bob", 30),      // bob is homed in eu
                      step -> add(eu, step, "bob", -30))
                .build();
        SagaCoordinator coordinator = SagaCoordinator.builder()
                .dataSource(sagas)
                .saga(transfer)
                .owner("shop-cn-1")
                .build();
        coordinator.recover();   // after a restart: finish or compensate what a crash left
        return coordinator.start("transfer", "alice->bob 30");
    }
    // doc:end

    @Test
    void transfer_completes() {
        assertThat(transfer(bank.sagas, bank.cn, bank.eu).status().state()).isEqualTo(SagaState.COMPLETED);
        assertThat(bank.credit("alice")).isEqualTo(70);
        assertThat(bank.credit("bob")).isEqualTo(130);
    }

    @Test
    void docsSagaMd_quotesThisExampleUnchanged() throws Exception {
        String source = Files.readString(Path.of("src/test/java/io/unitas/data/saga/SagaDocExampleTest.java"),
                                         StandardCharsets.UTF_8);
        String example = source.substring(source.indexOf("    // doc:begin\n") + "    // doc:begin\n".length(),
                                          source.indexOf("    // doc:end"))
                .replaceAll("(?m)^    ", "");
        String doc = Files.readString(Path.of("../docs/saga.md"), StandardCharsets.UTF_8);
        assertThat(doc).contains(example);
    }
}
