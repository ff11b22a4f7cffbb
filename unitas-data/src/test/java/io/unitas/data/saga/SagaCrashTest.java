package io.unitas.data.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.saga.SagaState;
import io.unitas.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A transfer of credit between alice (homed in cn) and bob or carol (homed in eu), with the coordinator crashed at
 * each of its persisted boundaries in turn and a fresh coordinator recovering: the total credit is conserved, the
 * saga ends completed or compensated, and nothing is applied twice.
 */
class SagaCrashTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    /** The boundaries of a crash-free run, counted below by {@link #boundaries_ofACrashFreeRun_areAllNamed}. */
    private static final int COMPLETED_BOUNDARIES = 5;
    private static final int COMPENSATED_BOUNDARIES = 7;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T10:00:00Z"));
    private final Bank bank = new Bank(clock);

    @AfterEach
    void drop() {
        bank.close();
    }

    /** Thrown at the chosen boundary: the coordinator's process dies there. */
    static final class Crash extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Crash(String where) {
            super("crashed at " + where, null, false, false);
        }
    }

    private SagaCoordinator coordinator(String owner, SagaBoundaries boundaries) {
        return SagaCoordinator.builder().dataSource(bank.sagas).saga(bank.transfer()).owner(owner).clock(clock)
                .lease(LEASE).boundaries(boundaries).build();
    }

    @Test
    void boundaries_ofACrashFreeRun_areAllNamed() {
        List<String> seen = new ArrayList<>();
        SagaCoordinator first = coordinator("cn-1", (n, what) -> seen.add(n + " " + what.replaceAll(" [0-9a-f-]{36}$",
                                                                                                       "")));
        SagaRecord done = first.start("transfer", "alice,bob,30");
        assertThat(done.status().state()).isEqualTo(SagaState.COMPLETED);
        assertThat(done).as("start's answer is the row as written").isEqualTo(first.find(done.id()).orElseThrow());
        // Three commits: each step's start is written with what came before it (the saga recorded, the last step's
        // result), and the last result ends the saga.
        assertThat(seen).containsExactly("1 recorded, before execute debit", "2 applied execute debit",
                                         "3 after execute debit, before execute credit", "4 applied execute credit",
                                         "5 after execute credit");
        assertThat(seen).hasSize(COMPLETED_BOUNDARIES);

        seen.clear();
        SagaCoordinator second = coordinator("cn-2", (n, what) -> seen.add(what.replaceAll(" [0-9a-f-]{36}$", "")));
        SagaRecord refused = second.start("transfer", "alice,carol,30");
        assertThat(refused.status().state()).isEqualTo(SagaState.COMPENSATED);
        assertThat(refused).isEqualTo(second.find(refused.id()).orElseThrow());
        assertThat(refused.lastError()).hasValue("StepRefused: carol: account closed");
        assertThat(seen).hasSize(COMPENSATED_BOUNDARIES)
                .endsWith("after execute debit, before execute credit", "applied execute credit",
                          "after execute credit, before compensate debit", "applied compensate debit",
                          "after compensate debit");
        assertThat(bank.credit("alice")).as("the first transfer's debit only").isEqualTo(70);
        assertThat(bank.total()).isEqualTo(300);
    }

    static Stream<Arguments> crashes() {
        return Stream.concat(
                IntStream.rangeClosed(1, COMPLETED_BOUNDARIES).mapToObj(k -> Arguments.of("bob", k)),
                IntStream.rangeClosed(1, COMPENSATED_BOUNDARIES).mapToObj(k -> Arguments.of("carol", k)));
    }

    @ParameterizedTest(name = "alice pays {0}, the coordinator dies at boundary {1}")
    @MethodSource("crashes")
    void crashAtEveryBoundary_aFreshCoordinatorFinishesOrCompensates(String payee, int k) {
        List<String> at = new ArrayList<>();
        SagaCoordinator first = coordinator("cn-1", (n, what) -> {
            if (n == k) {
                at.add(what);
                throw new Crash(what);
            }
        });
        assertThatThrownBy(() -> first.start("transfer", "alice," + payee + ",30")).isInstanceOf(Crash.class);
        assertThat(at).hasSize(1);

        SagaCoordinator second = coordinator("eu-1", SagaBoundaries.NONE);
        assertThat(second.recover()).as("the crashed coordinator's lease still holds, or the saga ended").isZero();
        clock.advance(LEASE);
        boolean ended = k == (payee.equals("bob") ? COMPLETED_BOUNDARIES : COMPENSATED_BOUNDARIES);
        assertThat(second.recover()).as("after the lease, " + at.get(0)).isEqualTo(ended ? 0 : 1);

        SagaRecord record = second.find(onlySaga()).orElseThrow();
        boolean paid = payee.equals("bob");
        assertThat(record.status().state()).isEqualTo(paid ? SagaState.COMPLETED : SagaState.COMPENSATED);
        assertThat(bank.total()).as("credit conserved").isEqualTo(300);
        assertThat(bank.credit("alice")).as("debited once, or not at all").isEqualTo(paid ? 70 : 100);
        assertThat(bank.credit(payee)).as("credited once, or not at all").isEqualTo(paid ? 130 : 100);
        assertThat(record.owner()).as("lease released").isEmpty();
        assertThat(second.recover()).as("nothing left").isZero();
    }

    @Test
    void aSagaRecordedPendingByAnEarlierVersion_isStartedByRecovery() {
        // Earlier versions committed "recorded" (pending, lease taken) on its own; a crash just after it left this row.
        long now = clock.millis();
        Bank.execute(bank.sagas, "INSERT INTO unitas_sagas (id, name, payload, state, step, attempts, compensating,"
                                 + " next_attempt_at, owner, lease_epoch, lease_until, created_at, updated_at) VALUES"
                                 + " ('old-1', 'transfer', 'alice,bob,30', 'pending', 0, 0, FALSE, " + now
                                 + ", 'cn-old', 1, " + (now + LEASE.toMillis()) + ", " + now + ", " + now + ")");
        SagaCoordinator recovering = coordinator("eu-1", SagaBoundaries.NONE);
        clock.advance(LEASE);

        assertThat(recovering.recover()).isEqualTo(1);

        SagaRecord record = recovering.find("old-1").orElseThrow();
        assertThat(record.status().state()).isEqualTo(SagaState.COMPLETED);
        assertThat(record.owner()).as("lease released").isEmpty();
        assertThat(bank.credit("alice")).isEqualTo(70);
        assertThat(bank.credit("bob")).isEqualTo(130);
    }

    private String onlySaga() {
        try (var c = bank.sagas.getConnection(); var s = c.createStatement();
             var rs = s.executeQuery("SELECT id FROM unitas_sagas")) {
            rs.next();
            return rs.getString(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void insufficientCredit_refusedDebit_compensatesNothing() {
        SagaRecord refused = coordinator("cn-1", SagaBoundaries.NONE).start("transfer", "alice,bob,500");
        assertThat(refused.status().state()).isEqualTo(SagaState.COMPENSATED);
        assertThat(refused.lastError()).hasValue("StepRefused: alice: credit below 500");
        assertThat(bank.credits.get()).as("credit never ran").isZero();
        assertThat(bank.total()).isEqualTo(300);
    }
}
