package io.unitas.core.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class SagaMachineTest {

    private static final Duration T = Duration.ofSeconds(1);
    private static final SagaRetry THREE = new SagaRetry(3, Duration.ofMillis(100), Duration.ofSeconds(1));
    private static final SagaDefinition TRANSFER = SagaDefinition.of("transfer", List.of(
            SagaStep.compensable("debit", T), SagaStep.compensable("credit", T)));
    private static final SagaDefinition ORDER = SagaDefinition.of("order", List.of(
            SagaStep.compensable("reserve", T), SagaStep.pivot("charge", T), SagaStep.retriable("ship", T)));

    @Test
    void transfer_bothStepsSucceed_completes() {
        List<String> trace = run(TRANSFER, List.of(SagaEvent.SUCCEEDED, SagaEvent.SUCCEEDED), THREE);
        assertThat(trace).containsExactly("execute 0", "execute 1", "completed");
    }

    @Test
    void transfer_creditRefused_compensatesDebitOnly() {
        List<String> trace = run(TRANSFER, List.of(SagaEvent.SUCCEEDED, SagaEvent.REFUSED, SagaEvent.SUCCEEDED),
                                 THREE);
        assertThat(trace).containsExactly("execute 0", "execute 1", "compensate 0", "compensated");
    }

    @Test
    void transfer_creditErrsPastRetries_compensatesCreditThenDebit() {
        List<String> trace = run(TRANSFER, List.of(SagaEvent.SUCCEEDED, SagaEvent.ERROR, SagaEvent.ERROR,
                                                   SagaEvent.ERROR, SagaEvent.SUCCEEDED, SagaEvent.SUCCEEDED), THREE);
        assertThat(trace).containsExactly("execute 0", "execute 1", "execute 1 #1", "execute 1 #2",
                                          "compensate 1", "compensate 0", "compensated");
    }

    @Test
    void compensationKeepsFailing_isStuckUntilAnOperatorRetries() {
        SagaStatus status = new SagaStatus(SagaState.COMPENSATING, 0, 0, true);
        for (int i = 0; i < 3; i++) {
            status = SagaMachine.on(TRANSFER, status, SagaEvent.ERROR, THREE);
        }
        assertThat(status).isEqualTo(new SagaStatus(SagaState.FAILED, 0, 3, true));
        assertThat(SagaMachine.action(TRANSFER, status)).isEqualTo(new SagaAction.AwaitOperator(0, true));
        assertThat(SagaMachine.on(TRANSFER, status, SagaEvent.RETRY, THREE))
                .isEqualTo(new SagaStatus(SagaState.COMPENSATING, 0, 0, true));
        assertThat(SagaMachine.on(TRANSFER, status, new SagaEvent.Resolve(SagaState.COMPENSATED), THREE).state())
                .isEqualTo(SagaState.COMPENSATED);
    }

    @Test
    void pivotRefused_compensatesTheStepsBeforeIt() {
        assertThat(run(ORDER, List.of(SagaEvent.SUCCEEDED, SagaEvent.REFUSED, SagaEvent.SUCCEEDED), THREE))
                .containsExactly("execute 0", "execute 1", "compensate 0", "compensated");
    }

    @Test
    void afterThePivot_thereIsNoGoingBack() {
        assertThat(run(ORDER, List.of(SagaEvent.SUCCEEDED, SagaEvent.SUCCEEDED, SagaEvent.REFUSED), THREE))
                .containsExactly("execute 0", "execute 1", "execute 2", "stuck executing 2");
        assertThat(run(ORDER, List.of(SagaEvent.SUCCEEDED, SagaEvent.ERROR, SagaEvent.ERROR, SagaEvent.ERROR),
                       THREE))
                .containsExactly("execute 0", "execute 1", "execute 1 #1", "execute 1 #2", "stuck executing 1");
    }

    @Test
    void eventThatCannotHappen_namesStateAndExpected() {
        assertThatThrownBy(() -> SagaMachine.on(TRANSFER, SagaStatus.pending(), SagaEvent.SUCCEEDED, THREE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("saga pending at step 0: event Succeeded[] (expected: START)");
        assertThatThrownBy(() -> SagaMachine.on(TRANSFER, new SagaStatus(SagaState.COMPLETED, 1, 0, false),
                                                SagaEvent.RETRY, THREE))
                .hasMessage("saga completed at step 1: event Retry[] (expected: nothing: the saga has ended)");
        assertThatThrownBy(() -> new SagaEvent.Resolve(SagaState.FAILED))
                .hasMessage("outcome: FAILED (expected: COMPLETED or COMPENSATED)");
    }

    @Test
    void retry_backsOffExponentiallyUpToMax() {
        SagaRetry retry = new SagaRetry(10, Duration.ofMillis(100), Duration.ofMillis(500));
        assertThat(List.of(retry.delay(0), retry.delay(1), retry.delay(2), retry.delay(3), retry.delay(4),
                           retry.delay(40)))
                .containsExactly(Duration.ZERO, Duration.ofMillis(100), Duration.ofMillis(200),
                                 Duration.ofMillis(400), Duration.ofMillis(500), Duration.ofMillis(500));
    }

    /**
     * Whatever the steps answer, a saga ends within a bound; it completes only after every step succeeded in order;
     * it is compensated only when no step from the pivot on succeeded, after undoing every step that may have
     * applied, last first; only compensable steps are ever compensated.
     */
    @Property(tries = 2000)
    void anyOutcomes_keepTheSagaInvariants(@ForAll @IntRange(min = 1, max = 6) int steps,
                                           @ForAll @IntRange(min = -1, max = 5) int pivotAt,
                                           @ForAll @IntRange(min = 1, max = 4) int maxAttempts,
                                           @ForAll("events") @Size(max = 40) List<SagaEvent> outcomes) {
        int pivot = pivotAt < steps ? pivotAt : -1;
        List<SagaStep> list = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            list.add(i == pivot ? SagaStep.pivot("s" + i, T)
                             : pivot >= 0 && i > pivot ? SagaStep.retriable("s" + i, T)
                             : SagaStep.compensable("s" + i, T));
        }
        SagaDefinition definition = SagaDefinition.of("p", list);
        SagaRetry retry = new SagaRetry(maxAttempts, Duration.ZERO, Duration.ZERO);

        SagaStatus status = SagaStatus.pending();
        List<Integer> succeeded = new ArrayList<>();
        List<Integer> mayHaveApplied = new ArrayList<>();
        List<Integer> compensated = new ArrayList<>();
        int bound = 2 + 2 * steps * maxAttempts;
        int n = 0;
        int next = 0;
        while (true) {
            SagaAction action = SagaMachine.action(definition, status);
            if (action instanceof SagaAction.Finished || action instanceof SagaAction.AwaitOperator) {
                break;
            }
            assertThat(n++).as("transitions").isLessThanOrEqualTo(bound);
            SagaEvent event = action instanceof SagaAction.Start ? SagaEvent.START
                    : next < outcomes.size() ? outcomes.get(next++) : SagaEvent.SUCCEEDED;
            if (action instanceof SagaAction.Execute execute) {
                assertThat(execute.step()).isEqualTo(succeeded.size());
                if (event == SagaEvent.SUCCEEDED) {
                    succeeded.add(execute.step());
                } else if (event == SagaEvent.ERROR && !mayHaveApplied.contains(execute.step())) {
                    mayHaveApplied.add(execute.step());
                }
            }
            if (action instanceof SagaAction.Compensate compensate) {
                assertThat(definition.compensates(compensate.step())).isTrue();
                if (event == SagaEvent.SUCCEEDED) {
                    compensated.add(compensate.step());
                }
            }
            status = SagaMachine.on(definition, status, event, retry);
        }
        switch (status.state()) {
            case COMPLETED -> {
                assertThat(succeeded).hasSize(steps);
                assertThat(compensated).isEmpty();
            }
            case COMPENSATED -> {
                assertThat(succeeded).allMatch(definition::compensates);
                assertThat(compensated).isSortedAccordingTo((a, b) -> b - a).doesNotHaveDuplicates();
                assertThat(compensated).containsAll(succeeded);
                assertThat(compensated).allMatch(i -> succeeded.contains(i) || mayHaveApplied.contains(i));
            }
            case FAILED -> assertThat(status.compensating() || !definition.compensates(status.step())).isTrue();
            default -> throw new AssertionError("ended " + status);
        }
    }

    @Provide
    Arbitrary<List<SagaEvent>> events() {
        return Arbitraries.of(SagaEvent.SUCCEEDED, SagaEvent.ERROR, SagaEvent.REFUSED).list().ofMaxSize(40);
    }

    private static List<String> run(SagaDefinition definition, List<SagaEvent> outcomes, SagaRetry retry) {
        List<String> trace = new ArrayList<>();
        SagaStatus status = SagaMachine.on(definition, SagaStatus.pending(), SagaEvent.START, retry);
        int next = 0;
        while (true) {
            SagaAction action = SagaMachine.action(definition, status);
            if (action instanceof SagaAction.Execute e) {
                trace.add("execute " + e.step() + (e.attempt() > 0 ? " #" + e.attempt() : ""));
            } else if (action instanceof SagaAction.Compensate c) {
                trace.add("compensate " + c.step() + (c.attempt() > 0 ? " #" + c.attempt() : ""));
            } else if (action instanceof SagaAction.AwaitOperator a) {
                trace.add("stuck " + (a.compensating() ? "compensating " : "executing ") + a.step());
                return trace;
            } else if (action instanceof SagaAction.Finished f) {
                trace.add(f.state().jsonName());
                return trace;
            }
            status = SagaMachine.on(definition, status, outcomes.get(next++), retry);
        }
    }
}
