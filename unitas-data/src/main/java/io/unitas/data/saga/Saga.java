package io.unitas.data.saga;

import io.unitas.core.InvalidModelException;
import io.unitas.core.Problem;
import io.unitas.core.saga.SagaDefinition;
import io.unitas.core.saga.SagaStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A saga with its code: the {@link SagaDefinition} the state machine reads, and each step's execution and
 * compensation.
 *
 * <pre>{@code
 * Saga transfer = Saga.builder("transfer")
 *         .step("debit", Duration.ofSeconds(2), debit, refund)
 *         .step("credit", Duration.ofSeconds(2), credit, uncredit)
 *         .build();
 * }</pre>
 */
public final class Saga {

    private final SagaDefinition definition;
    private final List<StepAction> executions;
    private final List<StepAction> compensations; // null where a step has none

    private Saga(SagaDefinition definition, List<StepAction> executions, List<StepAction> compensations) {
        this.definition = definition;
        this.executions = executions;
        this.compensations = compensations;
    }

    /** A builder for the saga named {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The steps as the state machine sees them. */
    public SagaDefinition definition() {
        return definition;
    }

    /** The saga's name. */
    public String name() {
        return definition.name();
    }

    StepAction execution(int step) {
        return executions.get(step);
    }

    StepAction compensation(int step) {
        return compensations.get(step);
    }

    /** Collects the steps of a {@link Saga}, in order. */
    public static final class Builder {
        private final String name;
        private final List<SagaStep> steps = new ArrayList<>();
        private final List<StepAction> executions = new ArrayList<>();
        private final List<StepAction> compensations = new ArrayList<>();

        private Builder(String name) {
            this.name = name;
        }

        /** A step with a compensation. */
        public Builder step(String name, Duration timeout, StepAction execute, StepAction compensate) {
            return add(new SagaStep(name, timeout, compensate != null, false), execute, compensate);
        }

        /** A step without a compensation: valid only after the pivot, where it is retried until it succeeds. */
        public Builder step(String name, Duration timeout, StepAction execute) {
            return add(new SagaStep(name, timeout, false, false), execute, null);
        }

        /** The pivot: no compensation; once it has run, the saga only goes forward. */
        public Builder pivot(String name, Duration timeout, StepAction execute) {
            return add(new SagaStep(name, timeout, false, true), execute, null);
        }

        private Builder add(SagaStep step, StepAction execute, StepAction compensate) {
            steps.add(step);
            executions.add(execute);
            compensations.add(compensate);
            return this;
        }

        /**
         * The saga.
         *
         * @throws InvalidModelException with every problem of the definition at once, each naming the step
         */
        public Saga build() {
            List<Problem> problems = new ArrayList<>(SagaDefinition.problems(name, steps));
            for (int i = 0; i < steps.size(); i++) {
                if (executions.get(i) == null) {
                    problems.add(new Problem("steps[" + i + "] (" + steps.get(i).name() + ")",
                                             "execute null (expected: the step's action)"));
                }
            }
            if (!problems.isEmpty()) {
                throw new InvalidModelException(problems);
            }
            return new Saga(SagaDefinition.of(name, steps), List.copyOf(executions),
                            Collections.unmodifiableList(new ArrayList<>(compensations)));
        }
    }

    @Override
    public String toString() {
        return "Saga[" + definition.name() + ", " + definition.steps().size() + " steps]";
    }
}
