/**
 * Regional stores: each region's users, sessions, idempotency records, orders and carts, keyed by user with their
 * home unit, switchable to read-only or unavailable to inject faults, and each keeping the change log that
 * replication ships to the other regions. {@link io.unitas.data.store.RegionalStore#embedded} is an in-memory H2
 * database; {@link io.unitas.data.store.RegionalStore#jdbc} runs the same SQL on PostgreSQL.
 */
package io.unitas.data.store;
