/**
 * Replication as a contract: a service's write and its {@link io.unitas.data.outbox.ChangeEnvelope change} commit
 * together ({@link io.unitas.data.outbox.Outbox}, a transactional outbox); an
 * {@link io.unitas.data.outbox.OutboxShipper} hands them to a {@link io.unitas.data.outbox.ChangeTransport} that
 * keeps each unit's order and delivers at least once; a {@link io.unitas.data.outbox.ChangeApplier} in each other
 * region applies each change once, storing its position per (origin, unit) with the data; and the lag of every unit
 * in every other region is reported ({@link io.unitas.data.outbox.UnitLagReport}) and exported as a meter.
 */
package io.unitas.data.outbox;
