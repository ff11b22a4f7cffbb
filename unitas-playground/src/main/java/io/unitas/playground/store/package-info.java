/**
 * The demo shop's regional stores: each region's users, sessions, idempotency records, orders and carts, keyed by
 * user with their home unit, switchable to read-only or unavailable to inject faults, and each keeping the change
 * log that {@link io.unitas.playground.replication.Replicator} ships to the other regions.
 * {@link io.unitas.playground.store.RegionalStore#embedded} is an in-memory H2 database;
 * {@link io.unitas.playground.store.RegionalStore#jdbc} runs the same SQL on PostgreSQL.
 * {@link io.unitas.playground.store.ShopData} puts the shop's entities on the data layer's generic readiness and
 * idempotency.
 */
package io.unitas.playground.store;
