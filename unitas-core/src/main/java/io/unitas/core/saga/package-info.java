/**
 * Sagas as pure values: a {@link io.unitas.core.saga.SagaDefinition} (steps, each with a timeout and a
 * compensation, at most one pivot), the {@link io.unitas.core.saga.SagaStatus} a coordinator persists, and
 * {@link io.unitas.core.saga.SagaMachine}, which maps (status, event) to the next status and a status to the
 * {@link io.unitas.core.saga.SagaAction} to take. Recovery after a crash is "load the persisted status, ask the
 * machine what to do next". The data layer persists these values and runs the steps; nothing here performs I/O or
 * reads a clock.
 */
package io.unitas.core.saga;
