/**
 * The data-layer rules of multi-region serving, for any service and its own schema:
 * {@link io.unitas.data.DataReadiness} (read an entity where it is, from its home region when it has not arrived
 * yet, or answer a retryable "not ready" — never "not found"), {@link io.unitas.data.Idempotency} (Idempotency-Key
 * records kept in the owner's home unit's {@link io.unitas.data.IdempotencyStore}), what home is for a key
 * ({@link io.unitas.data.HomeResolver}, by the unit rules) and the {@link io.unitas.data.DataProblem}s they answer
 * with.
 */
package io.unitas.data;
