/**
 * A two-level cache usable without the rest of unitas: {@link io.unitas.cache.TwoLevelCache} keeps entries in memory
 * (Caffeine, bounded in size) and on local disk (RocksDB, surviving restarts), each entry with the version of the
 * data it holds and the time it was written. Entries older than the cache's TTL are not served and are deleted;
 * read-through never serves an entry older than the freshness bound. {@link io.unitas.cache.Invalidation}s, usually
 * received over Kafka ({@code io.unitas.cache.kafka}), drop entries older than the change they announce and are
 * ignored when the cache already holds that version or a newer one.
 */
package io.unitas.cache;
