package io.unitas.core.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.InvalidModelException;
import io.unitas.core.Problem;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SagaDefinitionTest {

    private static final Duration T = Duration.ofSeconds(1);

    @Test
    void of_validTransfer_keepsStepsInOrder() {
        SagaDefinition transfer = SagaDefinition.of("transfer", List.of(SagaStep.compensable("debit", T),
                                                                        SagaStep.compensable("credit", T)));
        assertThat(transfer.steps()).extracting(SagaStep::name).containsExactly("debit", "credit");
        assertThat(transfer.pivot()).isEqualTo(-1);
        assertThat(transfer.compensates(1)).isTrue();
    }

    @Test
    void of_pivotThenRetriable_isValid() {
        SagaDefinition order = SagaDefinition.of("order", List.of(SagaStep.compensable("reserve", T),
                                                                  SagaStep.pivot("charge", T),
                                                                  SagaStep.retriable("ship", T)));
        assertThat(order.pivot()).isEqualTo(1);
        assertThat(order.compensates(0)).isTrue();
        assertThat(order.compensates(1)).isFalse();
        assertThat(order.compensates(2)).isFalse();
    }

    @Test
    void of_everyMistake_reportedAtOnceNamingTheStep() {
        assertThatThrownBy(() -> SagaDefinition.of(" ", List.of(
                SagaStep.compensable("debit", T),
                SagaStep.retriable("notify", T),
                SagaStep.compensable("debit", Duration.ZERO),
                SagaStep.retriable("audit", T),
                SagaStep.pivot("charge", T),
                new SagaStep("charge2", T, true, true),
                SagaStep.compensable("ship", T))))
                .isInstanceOfSatisfying(InvalidModelException.class, e -> assertThat(e.problems())
                        .extracting(Problem::toString)
                        .containsExactly(
                                "name: ' ' (expected: a non-blank name)",
                                "steps[1] (notify): no compensation before the pivot (expected: a compensation;"
                                + " only the pivot and the steps after it have none)",
                                "steps[2] (debit): name repeats steps[0] (expected: unique step names, each part"
                                + " of the step's idempotency key)",
                                "steps[2] (debit): timeout PT0S (expected: > 0)",
                                "steps[3] (audit): no compensation before the pivot (expected: a compensation;"
                                + " only the pivot and the steps after it have none)",
                                "steps[5] (charge2): a second pivot (expected: one pivot at most; steps[4] (charge)"
                                + " is the pivot)",
                                "steps[5] (charge2): the pivot has a compensation (expected: none; nothing is"
                                + " compensated once the pivot has run)",
                                "steps[6] (ship): a compensation after the pivot steps[4] (charge) (expected: none;"
                                + " steps after the pivot are retried, never compensated)"));
    }

    @Test
    void of_stepWithoutCompensationAndNoPivot_isRefusedUnlessMarkedPivot() {
        assertThat(SagaDefinition.problems("transfer", List.of(SagaStep.compensable("debit", T),
                                                                SagaStep.retriable("credit", T))))
                .extracting(Problem::toString)
                .containsExactly("steps[1] (credit): no compensation (expected: a compensation, or the step marked as"
                                 + " the pivot)");
        assertThat(SagaDefinition.problems("transfer", List.of(SagaStep.compensable("debit", T),
                                                                SagaStep.pivot("credit", T)))).isEmpty();
    }

    @Test
    void of_noSteps_andNullTimeout_andBlankStepName() {
        assertThat(SagaDefinition.problems("t", List.of())).extracting(Problem::toString)
                .containsExactly("steps: [] (expected: at least one step)");
        assertThat(SagaDefinition.problems("t", List.of(new SagaStep("", null, true, false))))
                .extracting(Problem::toString)
                .containsExactly("steps[0]: name '' (expected: a non-blank name)",
                                 "steps[0]: timeout null (expected: > 0)");
    }
}
