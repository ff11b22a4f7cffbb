package io.unitas.data.saga;

/**
 * A step's execution or compensation. It returns normally when its effect is applied (or was already), throws
 * {@link StepRefused} when it applied nothing and never will (insufficient credit), and throws anything else when
 * it failed or may have partly applied; it is then retried with the same {@link StepContext#idempotencyKey}.
 */
@FunctionalInterface
public interface StepAction {

    /** Applies the effect for {@code context}. */
    void run(StepContext context) throws Exception;
}
