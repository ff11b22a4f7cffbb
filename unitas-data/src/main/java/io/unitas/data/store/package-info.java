/**
 * The values every store of the data layer speaks in: {@link io.unitas.data.store.StoreResult} (a value, or the
 * expected reason there is none), {@link io.unitas.data.store.IdempotencyRecord} and the
 * {@link io.unitas.data.store.StoredResponse} it keeps.
 */
package io.unitas.data.store;
