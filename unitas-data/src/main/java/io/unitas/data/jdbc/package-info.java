/**
 * unitas's own tables in a service's database (PostgreSQL in production, H2 embedded): versioned migrations
 * applied on start ({@link io.unitas.data.jdbc.UnitasSchema}) and the idempotency records
 * ({@link io.unitas.data.internal.JdbcIdempotencyStore}). The outbox and applied positions live in
 * {@link io.unitas.data.outbox}.
 */
package io.unitas.data.jdbc;
