package io.unitas.data.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.testkit.MutableClock;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SagaSteps#once} on PostgreSQL: an execution applies once, a compensation undoes only what was applied and
 * only once, an execution after its compensation applies nothing, and an execution and its compensation in two
 * transactions wait for each other on the step's row.
 */
class SagaStepsTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-04T10:00:00Z"));
    private final Bank bank = new Bank(clock);
    private final AtomicInteger applied = new AtomicInteger();

    @AfterEach
    void drop() {
        bank.close();
    }

    private static StepContext execute(String saga) {
        return new StepContext(saga, "debit", false, 0, "");
    }

    private static StepContext compensate(String saga) {
        return new StepContext(saga, "debit", true, 0, "");
    }

    /** {@code once} in a transaction of its own on cn's store, committed; whether the work ran. */
    private boolean once(StepContext step, int delta) throws SQLException {
        try (Connection c = bank.cn.getConnection()) {
            c.setAutoCommit(false);
            boolean ran = SagaSteps.once(c, step, clock, tx -> applied.addAndGet(delta));
            c.commit();
            return ran;
        }
    }

    @Test
    void execution_appliesOnce_compensation_undoesOnce() throws SQLException {
        assertThat(once(execute("s1"), 1)).isTrue();
        assertThat(once(execute("s1"), 1)).as("a second execution").isFalse();
        assertThat(applied).hasValue(1);
        assertThat(once(compensate("s1"), -1)).isTrue();
        assertThat(once(compensate("s1"), -1)).as("a second compensation").isFalse();
        assertThat(once(execute("s1"), 1)).as("an execution after the compensation").isFalse();
        assertThat(applied).hasValue(0);
        assertThat(once(execute("s2"), 1)).as("another saga's step").isTrue();
        assertThat(applied).hasValue(1);
    }

    @Test
    void compensationFirst_undoesNothing_andALateExecutionAppliesNothing() throws SQLException {
        assertThat(once(compensate("s1"), -1)).isFalse();
        assertThat(once(execute("s1"), 1)).isFalse();
        assertThat(once(compensate("s1"), -1)).isFalse();
        assertThat(applied).hasValue(0);
        assertThat(Bank.queryLong(bank.cn, "SELECT COUNT(*) FROM unitas_saga_applied WHERE saga_id = 's1'"
                                           + " AND executed_at IS NULL AND compensated_at IS NOT NULL")).isEqualTo(1);
    }

    @Test
    void aRolledBackExecution_leavesNoMark() throws SQLException {
        try (Connection c = bank.cn.getConnection()) {
            c.setAutoCommit(false);
            assertThat(SagaSteps.once(c, execute("s1"), clock, tx -> applied.incrementAndGet())).isTrue();
            c.rollback();
        }
        assertThat(once(execute("s1"), 1)).as("the retry after the rollback").isTrue();
        assertThat(applied).hasValue(2);
    }

    @Test
    void compensation_waitsForAnExecutionInFlight_thenUndoesIt() throws Exception {
        DataSource cn = bank.cn;
        try (Connection first = cn.getConnection()) {
            first.setAutoCommit(false);
            assertThat(SagaSteps.once(first, execute("s1"), clock, tx -> applied.incrementAndGet())).isTrue();
            CompletableFuture<Boolean> compensation = CompletableFuture.supplyAsync(() -> {
                try {
                    return once(compensate("s1"), -1);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThatThrownBy(() -> compensation.get(500, TimeUnit.MILLISECONDS))
                    .as("the compensation waits on the step's row").isInstanceOf(TimeoutException.class);
            first.commit();
            assertThat(compensation.get(20, TimeUnit.SECONDS)).as("it sees the committed execution").isTrue();
        }
        assertThat(applied).hasValue(0);
    }

    @Test
    void autoCommit_isRefused() throws SQLException {
        try (Connection c = bank.cn.getConnection()) {
            assertThatThrownBy(() -> SagaSteps.once(c, execute("s1"), clock, tx -> applied.incrementAndGet()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("auto-commit");
        }
        assertThat(applied).hasValue(0);
    }
}
