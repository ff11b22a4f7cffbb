/**
 * Home reads over the network (回源): a region reads an entity from its unit's home region through an HTTP/2 hop
 * instead of a shared object. The home region serves {@link io.unitas.data.remote.HomeReadServer} over its own
 * store and refuses units it does not own; the other regions call it with
 * {@link io.unitas.data.remote.HomeReadClient}, which answers within a total deadline with a
 * {@link io.unitas.data.remote.HomeRead}: found, not found (only when the home said so), or a retryable
 * {@code data-not-ready} when the home cannot be read. The same hop carries the Idempotency-Key records of the
 * home's units ({@link io.unitas.data.remote.HomeReadClient#idempotency}, an
 * {@link io.unitas.data.IdempotencyStore} at the home) and copy reads of whatever another region holds.
 *
 * <p>The hop runs on Armeria, which unitas-data declares optional: a service with home reads adds
 * {@code com.linecorp.armeria:armeria} (the client and the server) and {@code io.unitas:unitas-server-bounds} (the
 * server) itself; the rest of unitas-data never loads them.
 */
package io.unitas.data.remote;
