package io.unitas.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a method of a bean as a step of the saga named {@link #saga}; the starter collects the steps of every bean,
 * orders them by {@link #order}, and runs them on the service's own {@code SagaCoordinator} (a bean), whose status is
 * kept in the service's database: no separate server to operate. The method takes the step's
 * {@code io.unitas.data.saga.StepContext}; its {@link #compensation} is another method of the same bean taking the
 * same.
 *
 * <pre>{@code
 * @Service
 * class Transfers {
 *     @SagaStep(saga = "transfer", order = 1, compensation = "refund")
 *     void debit(StepContext step) throws SQLException { ... }
 *     void refund(StepContext step) throws SQLException { ... }
 *
 *     @SagaStep(saga = "transfer", order = 2, compensation = "uncredit")
 *     void credit(StepContext step) throws SQLException { ... }
 *     void uncredit(StepContext step) throws SQLException { ... }
 * }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface SagaStep {

    /** The saga this step belongs to. */
    String saga();

    /** The step's place in its saga: steps run in ascending order, each order once per saga. */
    int order();

    /** The step's name, part of its idempotency key (default: the method's name). */
    String name() default "";

    /** The name of the method of the same bean that undoes this step; empty for the pivot and the steps after it. */
    String compensation() default "";

    /** Whether this step is the saga's pivot: no compensation, and once it ran the saga only goes forward. */
    boolean pivot() default false;

    /** How long one attempt may run, as Spring Boot reads durations ({@code 2s}, {@code 500ms}); under the lease. */
    String timeout() default "10s";
}
