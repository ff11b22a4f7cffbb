/**
 * Sagas across units, persisted and crash-safe: a {@link io.unitas.data.saga.Saga} (steps with their execution and
 * compensation), a {@link io.unitas.data.saga.SagaCoordinator} that persists each saga's status before and after every
 * step in PostgreSQL, holds a lease per saga so two coordinators never drive one, and finishes or compensates every
 * saga after a crash; {@link io.unitas.data.saga.SagaSteps} makes a step's write to a store apply once. The state
 * machine itself is {@link io.unitas.core.saga.SagaMachine}.
 */
package io.unitas.data.saga;
