/**
 * The data-layer rules of multi-region serving, for any service: {@link io.unitas.data.DataReadiness} (read a
 * user's data where it is, from the home region when it has not arrived yet, or answer a retryable "not ready" —
 * never "not found"), {@link io.unitas.data.Idempotency} (Idempotency-Key records kept with the user's home unit)
 * and the {@link io.unitas.data.DataProblem}s they answer with.
 */
package io.unitas.data;
