package io.unitas.data.saga;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.saga.SagaRetry;
import io.unitas.core.saga.SagaState;
import io.unitas.data.Home;
import io.unitas.testkit.MutableClock;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * "During a switchover, a saga step for a fenced unit waits (bounded) or fails into compensation; it never writes
 * into a fenced unit": each step writes in the home of the account it touches, by the data layer's home resolution,
 * and waits out its unit's fence on a controlled clock.
 */
class FencedUnitSagaTest {

    private static final Duration WAIT = Duration.ofSeconds(2);
    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T10:00:00Z"));
    private final Bank bank = new Bank(clock);
    private final Map<String, Home> homes = new ConcurrentHashMap<>(Map.of(
            "alice", Home.of("alice", "u-cn", CN), "bob", Home.of("bob", "u-eu", EU)));
    private final AtomicReference<WriteFences> fences = new AtomicReference<>(WriteFences.none());
    private final List<Duration> waits = new ArrayList<>();
    /** Runs after each wait, with the total waited so far: a switchover moving on while the step waits. */
    private volatile java.util.function.Consumer<Duration> duringWait = waited -> {};

    private final HomeSteps steps = HomeSteps.builder()
            .homes(key -> homes.getOrDefault(key, Home.none(key, "no such account")))
            .stores(region -> Optional.of(region.equals(CN) ? bank.cn : bank.eu))
            .fences(fences::get).fenceWait(WAIT).pollEvery(Duration.ofMillis(500)).clock(clock)
            .sleeper(d -> {
                waits.add(d);
                clock.advance(d);
                duringWait.accept(waits.stream().reduce(Duration.ZERO, Duration::plus));
            })
            .build();

    private final SagaCoordinator coordinator = SagaCoordinator.builder().dataSource(bank.sagas)
            .saga(transfer()).owner("cn-1").clock(clock)
            .retry(new SagaRetry(2, Duration.ofSeconds(1), Duration.ofSeconds(1))).build();

    @AfterEach
    void drop() {
        bank.close();
    }

    private Saga transfer() {
        return Saga.builder("transfer")
                .step("debit", Bank.STEP_TIMEOUT,
                      step -> steps.write(step, "alice", c -> add(c, "alice", -30)),
                      step -> steps.write(step, "alice", c -> add(c, "alice", 30)))
                .step("credit", Bank.STEP_TIMEOUT,
                      step -> steps.write(step, "bob", c -> add(c, "bob", 30)),
                      step -> steps.write(step, "bob", c -> add(c, "bob", -30)))
                .build();
    }

    private static void add(java.sql.Connection c, String account, long amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE accounts SET credit = credit + ? WHERE id = ?")) {
            ps.setLong(1, amount);
            ps.setString(2, account);
            ps.executeUpdate();
        }
    }

    private static long applied(DataSource store) {
        return Bank.queryLong(store, "SELECT COUNT(*) FROM unitas_saga_applied");
    }

    @Test
    void aStepForAFencedUnit_waitsItsBound_thenTheSagaCompensates_andNothingIsWrittenThere() {
        fences.set(WriteFences.of(Map.of("u-eu", FencePolicy.reject(Duration.ofSeconds(5)))));

        SagaRecord record = coordinator.start("transfer", "alice->bob 30");

        assertThat(record.status().state()).isEqualTo(SagaState.COMPENSATED);
        assertThat(record.lastError()).hasValueSatisfying(e -> assertThat(e).contains(
                "unit u-eu (home of 'bob') fenced for longer than the step's wait of PT2S; nothing written"));
        assertThat(waits).as("looked again every 500 ms up to the bound").hasSize(4)
                .allMatch(d -> d.equals(Duration.ofMillis(500)));
        assertThat(Bank.queryLong(bank.eu, "SELECT credit FROM accounts WHERE id = 'bob'")).isEqualTo(100);
        assertThat(applied(bank.eu)).as("no step recorded in the fenced unit's store").isZero();
        assertThat(bank.credit("alice")).as("debited, then refunded").isEqualTo(100);
        assertThat(bank.total()).isEqualTo(300);
    }

    @Test
    void aFenceThatLiftsWithinTheBound_letsTheStepRunInTheUnitsNewHome() {
        // alice's unit moves from cn to eu: fenced, her account already copied to eu, then flipped and unfenced
        Bank.execute(bank.eu, "INSERT INTO accounts VALUES ('alice', 100, FALSE)");
        fences.set(WriteFences.of(Map.of("u-cn", FencePolicy.reject(Duration.ofSeconds(5)))));
        duringWait = waited -> {
            if (waited.compareTo(Duration.ofSeconds(1)) >= 0) {
                homes.put("alice", Home.of("alice", "u-cn", EU));
                fences.set(WriteFences.none());
            }
        };

        SagaRecord record = coordinator.start("transfer", "alice->bob 30");

        assertThat(record.status().state()).isEqualTo(SagaState.COMPLETED);
        assertThat(waits).hasSize(2);
        assertThat(Bank.queryLong(bank.eu, "SELECT credit FROM accounts WHERE id = 'alice'"))
                .as("debited in her new home").isEqualTo(70);
        assertThat(Bank.queryLong(bank.cn, "SELECT credit FROM accounts WHERE id = 'alice'"))
                .as("never written in the old one").isEqualTo(100);
        assertThat(applied(bank.cn)).isZero();
        assertThat(Bank.queryLong(bank.eu, "SELECT credit FROM accounts WHERE id = 'bob'")).isEqualTo(130);
    }

    @Test
    void aCompensationForAFencedUnit_isRetried_neverWritten_andTheSagaIsStuckUntilTheFenceLifts() {
        // carol's account is closed: the credit refuses, and the refund meets cn fenced
        homes.put("carol", Home.of("carol", "u-eu", EU));
        Saga toCarol = Saga.builder("to-carol")
                .step("debit", Bank.STEP_TIMEOUT,
                      step -> steps.write(step, "alice", c -> add(c, "alice", -30)),
                      step -> steps.write(step, "alice", c -> add(c, "alice", 30)))
                .step("credit", Bank.STEP_TIMEOUT, step -> {
                    fences.set(WriteFences.of(Map.of("u-cn", FencePolicy.reject(Duration.ofSeconds(5)))));
                    throw new StepRefused("carol: account closed");
                }, step -> {})
                .build();
        SagaCoordinator carol = SagaCoordinator.builder().dataSource(bank.sagas).saga(toCarol).owner("cn-2")
                .clock(clock).retry(new SagaRetry(2, Duration.ofSeconds(1), Duration.ofSeconds(1))).build();

        SagaRecord record = carol.start("to-carol", "alice->carol 30");
        clock.advance(Duration.ofSeconds(1));
        carol.recover();

        assertThat(carol.stuck()).singleElement().satisfies(r -> {
            assertThat(r.id()).isEqualTo(record.id());
            assertThat(r.lastError()).hasValueSatisfying(e -> assertThat(e).startsWith(
                    "UnitFenced: unit u-cn (home of 'alice') fenced for longer"));
        });
        assertThat(bank.credit("alice")).as("the refund waits for the fence").isEqualTo(70);

        fences.set(WriteFences.none());
        assertThat(carol.retry(record.id(), "anna@ops", "u-cn unfenced").status().state())
                .isEqualTo(SagaState.COMPENSATED);
        assertThat(bank.credit("alice")).isEqualTo(100);
    }
}
