package io.unitas.core.saga;

import io.unitas.core.InvalidModelException;
import io.unitas.core.Problem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A saga's shape: its name and its steps in order. Every step before the pivot (every step, without a pivot) has
 * a compensation; the pivot has none; the steps after it have none either and are retried until they succeed, as
 * the Saga literature defines compensable, pivot and retriable transactions.
 *
 * <pre>{@code
 * SagaDefinition transfer = SagaDefinition.of("transfer", List.of(
 *         SagaStep.compensable("debit", Duration.ofSeconds(2)),
 *         SagaStep.compensable("credit", Duration.ofSeconds(2))));
 * }</pre>
 */
public record SagaDefinition(String name, List<SagaStep> steps) {

    /** Copies {@code steps}; use {@link #of} to validate. */
    public SagaDefinition {
        steps = List.copyOf(steps);
    }

    /**
     * A validated definition.
     *
     * @throws InvalidModelException with every problem at once, each naming the step ({@code steps[1] (credit)})
     *                               and what was expected
     */
    public static SagaDefinition of(String name, List<SagaStep> steps) {
        List<Problem> problems = problems(name, steps);
        if (!problems.isEmpty()) {
            throw new InvalidModelException(problems);
        }
        return new SagaDefinition(name, steps);
    }

    /** Every problem of a definition, in step order; empty when it is valid. */
    public static List<Problem> problems(String name, List<SagaStep> steps) {
        List<Problem> problems = new ArrayList<>();
        if (name == null || name.isBlank()) {
            problems.add(new Problem("name", "'" + (name == null ? "" : name) + "' (expected: a non-blank name)"));
        }
        if (steps == null || steps.isEmpty()) {
            problems.add(new Problem("steps", "[] (expected: at least one step)"));
            return problems;
        }
        Map<String, Integer> seen = new HashMap<>();
        int pivot = -1;
        for (int i = 0; i < steps.size(); i++) {
            SagaStep step = steps.get(i);
            if (step == null) {
                problems.add(new Problem("steps[" + i + "]", "null (expected: a step)"));
                continue;
            }
            String path = path(i, step);
            if (step.name() == null || step.name().isBlank()) {
                problems.add(new Problem(path, "name '" + (step.name() == null ? "" : step.name())
                                               + "' (expected: a non-blank name)"));
            } else {
                Integer first = seen.putIfAbsent(step.name(), i);
                if (first != null) {
                    problems.add(new Problem(path, "name repeats steps[" + first + "] (expected: unique step names,"
                                                   + " each part of the step's idempotency key)"));
                }
            }
            Duration timeout = step.timeout();
            if (timeout == null || timeout.isZero() || timeout.isNegative()) {
                problems.add(new Problem(path, "timeout " + timeout + " (expected: > 0)"));
            }
            if (step.pivot()) {
                if (pivot >= 0) {
                    problems.add(new Problem(path, "a second pivot (expected: one pivot at most; "
                                                   + path(pivot, steps.get(pivot)) + " is the pivot)"));
                } else {
                    pivot = i;
                }
                if (step.compensable()) {
                    problems.add(new Problem(path, "the pivot has a compensation (expected: none; nothing is"
                                                   + " compensated once the pivot has run)"));
                }
            } else if (pivot < 0 && !step.compensable() && !laterPivot(steps, i)) {
                problems.add(new Problem(path, "no compensation (expected: a compensation, or the step marked as"
                                               + " the pivot)"));
            } else if (pivot < 0 && !step.compensable()) {
                problems.add(new Problem(path, "no compensation before the pivot (expected: a compensation; only"
                                               + " the pivot and the steps after it have none)"));
            } else if (pivot >= 0 && step.compensable()) {
                problems.add(new Problem(path, "a compensation after the pivot " + path(pivot, steps.get(pivot))
                                               + " (expected: none; steps after the pivot are retried, never"
                                               + " compensated)"));
            }
        }
        return problems;
    }

    private static boolean laterPivot(List<SagaStep> steps, int i) {
        for (int j = i + 1; j < steps.size(); j++) {
            if (steps.get(j) != null && steps.get(j).pivot()) {
                return true;
            }
        }
        return false;
    }

    private static String path(int i, SagaStep step) {
        return "steps[" + i + "]" + (step.name() == null || step.name().isBlank() ? "" : " (" + step.name() + ")");
    }

    /** The index of the pivot, or -1 when every step is compensable. */
    public int pivot() {
        for (int i = 0; i < steps.size(); i++) {
            if (steps.get(i).pivot()) {
                return i;
            }
        }
        return -1;
    }

    /** Whether step {@code i} is compensated when the saga goes back (it comes before the pivot, if any). */
    public boolean compensates(int i) {
        int pivot = pivot();
        return pivot < 0 || i < pivot;
    }
}
