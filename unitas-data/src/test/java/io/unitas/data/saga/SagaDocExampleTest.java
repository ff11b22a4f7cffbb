package io.unitas.data.saga;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.saga.SagaState;
import io.unitas.data.Home;
import io.unitas.data.HomeResolver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The examples of docs/saga.md, compiled and run here on PostgreSQL; the doc must quote it unchanged. */
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

    // doc:begin
    /** The transfer with each step in the home of the account it touches, waiting out a fence of its unit. */
    static Saga transferAtHome(HomeResolver resolver, Map<Region, DataSource> byRegion,
                               Supplier<WriteFences> fences) {
        HomeSteps homes = HomeSteps.builder()
                .homes(resolver)                                // key -> unit and home region, by the unit rules
                .stores(region -> Optional.ofNullable(byRegion.get(region)))
                .fences(fences)                                 // the write fences in force now
                .fenceWait(Duration.ofSeconds(5))               // shorter than the steps' timeout
                .build();
        return Saga.builder("transfer")
                .step("debit", Duration.ofSeconds(10),
                      step -> homes.write(step, "alice", tx -> credit(tx, "alice", -30)),
                      step -> homes.write(step, "alice", tx -> credit(tx, "alice", 30)))
                .step("credit", Duration.ofSeconds(10),
                      step -> homes.write(step, "bob", tx -> credit(tx, "bob", 30)),
                      step -> homes.write(step, "bob", tx -> credit(tx, "bob", -30)))
                .build();
    }

    static void credit(Connection tx, String account, long amount) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement("UPDATE accounts SET credit = credit + ? WHERE id = ?")) {
            ps.setLong(1, amount);
            ps.setString(2, account);
            ps.executeUpdate();
        }
    }
    // doc:end

    @Test
    void transferAtHome_completes_eachStepInItsAccountsHome() {
        HomeResolver resolver = key -> key.equals("alice") ? Home.of(key, "u-cn", Region.of("cn"))
                : Home.of(key, "u-eu", Region.of("eu"));
        Saga saga = transferAtHome(resolver, Map.of(Region.of("cn"), bank.cn, Region.of("eu"), bank.eu),
                                   WriteFences::none);
        SagaCoordinator coordinator = SagaCoordinator.builder().dataSource(bank.sagas).saga(saga).build();
        assertThat(coordinator.start("transfer", "alice->bob 30").status().state()).isEqualTo(SagaState.COMPLETED);
        assertThat(bank.credit("alice")).isEqualTo(70);
        assertThat(bank.credit("bob")).isEqualTo(130);
    }

    @Test
    void transfer_completes() {
        assertThat(transfer(bank.sagas, bank.cn, bank.eu).status().state()).isEqualTo(SagaState.COMPLETED);
        assertThat(bank.credit("alice")).isEqualTo(70);
        assertThat(bank.credit("bob")).isEqualTo(130);
    }

    @Test
    void docsSagaMd_quotesTheseExamplesUnchanged() throws Exception {
        String source = Files.readString(Path.of("src/test/java/io/unitas/data/saga/SagaDocExampleTest.java"),
                                         StandardCharsets.UTF_8);
        String doc = Files.readString(Path.of("../docs/saga.md"), StandardCharsets.UTF_8);
        String begin = "    // doc:begin\n";
        int examples = 0;
        for (int at = source.indexOf(begin); at >= 0; at = source.indexOf(begin, at + 1)) {
            String example = source.substring(at + begin.length(), source.indexOf("    // doc:end", at));
            assertThat(unindented(doc)).contains(unindented(example));   // the doc may nest it in a class
            examples++;
        }
        assertThat(examples).isEqualTo(2);
    }

    private static String unindented(String text) {
        return text.lines().map(String::strip).collect(java.util.stream.Collectors.joining("\n"));
    }
}
