package io.unitas.data.saga;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.InvalidModelException;
import io.unitas.core.Problem;
import java.time.Duration;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** A saga or coordinator with mistakes: every problem at once, naming the step and what was expected. */
class SagaBadInputTest {

    private static final StepAction NOTHING = ctx -> {};
    private static final Duration T = Duration.ofSeconds(1);

    @Test
    void saga_everyMistakeAtOnce() {
        assertThatThrownBy(() -> Saga.builder("transfer")
                .step("debit", T, NOTHING, NOTHING)
                .step("credit", T, NOTHING)
                .step("debit", Duration.ofSeconds(-1), null, NOTHING)
                .build())
                .isInstanceOfSatisfying(InvalidModelException.class, e -> org.assertj.core.api.Assertions
                        .assertThat(e.problems()).extracting(Problem::toString).containsExactly(
                                "steps[1] (credit): no compensation (expected: a compensation, or the step marked as"
                                + " the pivot)",
                                "steps[2] (debit): name repeats steps[0] (expected: unique step names, each part of"
                                + " the step's idempotency key)",
                                "steps[2] (debit): timeout PT-1S (expected: > 0)",
                                "steps[2] (debit): execute null (expected: the step's action)"));
    }

    @Test
    void coordinator_stepTimeoutNotBelowTheLease_andNoDataSource() {
        Saga slow = Saga.builder("slow").step("wait", Duration.ofMinutes(1), NOTHING, NOTHING).build();
        assertThatThrownBy(() -> SagaCoordinator.builder().saga(slow).lease(Duration.ofSeconds(30)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dataSource: missing (expected: the database of the sagas' status); slow: steps[0] (wait):"
                            + " timeout PT1M (expected: < the lease PT30S, or another coordinator could take the saga"
                            + " over mid-step)");
    }

    @Test
    void start_unknownSaga_namesTheKnownOnes() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:saga-bad-input");
        DataSource ds = h2;
        SagaCoordinator coordinator = SagaCoordinator.builder().dataSource(ds)
                .saga(Saga.builder("transfer").step("debit", T, NOTHING, NOTHING).build()).build();
        assertThatThrownBy(() -> coordinator.start("tranfser", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("saga: 'tranfser' (expected: one of [transfer])");
    }
}
