package io.unitas.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.testkit.MutableClock;

/** The cache on real RocksDB files in a temporary directory, on a clock the tests move. */
class TwoLevelCacheTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(T0);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private TwoLevelCache<String> cache;

    @AfterEach
    void closeCache() {
        if (cache != null) {
            cache.close();
        }
    }

    private TwoLevelCache<String> open(long maximumSize) {
        return TwoLevelCache.builder("users", ValueCodec.utf8())
                .directory(dir)
                .maximumSize(maximumSize)
                .ttl(Duration.ofMinutes(10))
                .freshnessBound(Duration.ofMinutes(1))
                .clock(clock)
                .meterRegistry(registry)
                .build();
    }

    private double gets(String result) {
        return registry.get("unitas.cache.gets").tag("result", result).counter().count();
    }

    private double invalidations(String outcome) {
        return registry.get("unitas.cache.invalidations").tag("outcome", outcome).counter().count();
    }

    @Test
    void put_thenGet_isAnL1Hit() {
        cache = open(100);
        assertThat(cache.put("u-1", "ada", 1)).isTrue();

        assertThat(cache.getIfPresent("u-1")).isEqualTo("ada");
        assertThat(gets("l1_hit")).isEqualTo(1);
        assertThat(gets("l2_hit")).isZero();
    }

    @Test
    void closeAndReopen_servesFromDisk() {
        cache = open(100);
        cache.put("u-1", "ada", 1);
        cache.close();

        cache = open(100);
        assertThat(cache.getIfPresent("u-1")).isEqualTo("ada");
        assertThat(gets("l2_hit")).isEqualTo(1);
        // promoted: the second read is answered from memory
        assertThat(cache.getIfPresent("u-1")).isEqualTo("ada");
        assertThat(gets("l1_hit")).isEqualTo(1);
    }

    @Test
    void pastTheTtl_notServedAndDeletedFromDisk() {
        cache = open(100);
        cache.put("u-1", "ada", 1);
        clock.advance(Duration.ofMinutes(10));

        assertThat(cache.getIfPresent("u-1")).isNull();
        assertThat(registry.get("unitas.cache.expired").counter().count()).isEqualTo(1);
        cache.close();

        // deleted, not only hidden: a clock set back to the write time still finds nothing
        clock.advance(Duration.ofMinutes(-10));
        cache = open(100);
        assertThat(cache.getIfPresent("u-1")).isNull();
    }

    @Test
    void pastTheTtlAfterARestart_notServed() {
        cache = open(100);
        cache.put("u-1", "ada", 1);
        cache.close();
        clock.advance(Duration.ofMinutes(11));

        cache = open(100);
        assertThat(cache.getIfPresent("u-1")).isNull();
    }

    @Test
    void pastTheFreshnessBound_notServedButKept() {
        cache = open(100);
        cache.put("u-1", "ada", 1);
        clock.advance(Duration.ofSeconds(59));
        assertThat(cache.getIfPresent("u-1")).isEqualTo("ada");

        clock.advance(Duration.ofSeconds(1));
        assertThat(cache.getIfPresent("u-1")).isNull();
        assertThat(registry.get("unitas.cache.expired").counter().count()).isZero();
        // kept on disk until the TTL: an older value is still refused
        assertThat(cache.put("u-1", "old", 0)).isFalse();
    }

    @Test
    void evictedFromMemory_stillOnDisk_atTheSameVersion() {
        cache = open(1);
        cache.put("u-1", "ada", 1);
        cache.put("u-2", "bob", 1);

        assertThat(cache.getIfPresent("u-1")).isEqualTo("ada");
        assertThat(cache.getIfPresent("u-2")).isEqualTo("bob");
        assertThat(gets("l2_hit")).isGreaterThanOrEqualTo(1);
        // an eviction loses nothing and brings back nothing older: an older invalidation is still stale
        assertThat(cache.invalidate(new Invalidation("u-1", 1, T0))).isEqualTo(InvalidationOutcome.STALE);
    }

    @Test
    void withoutMemory_everyHitIsAnL2Hit() {
        cache = open(0);
        cache.put("u-1", "ada", 1);

        assertThat(cache.getIfPresent("u-1")).isEqualTo("ada");
        assertThat(cache.getIfPresent("u-1")).isEqualTo("ada");
        assertThat(gets("l2_hit")).isEqualTo(2);
        assertThat(gets("l1_hit")).isZero();
    }

    @Test
    void invalidationOfANewerVersion_dropsTheEntryFromBothLevels() {
        cache = open(100);
        cache.put("u-1", "ada", 3);

        assertThat(cache.invalidate(new Invalidation("u-1", 4, T0))).isEqualTo(InvalidationOutcome.APPLIED);
        assertThat(cache.getIfPresent("u-1")).isNull();
        cache.close();
        cache = open(100);
        assertThat(cache.getIfPresent("u-1")).isNull();
        assertThat(invalidations("applied")).isEqualTo(1);
    }

    @Test
    void invalidationOfTheHeldVersionOrOlder_isStale() {
        cache = open(100);
        cache.put("u-1", "ada", 3);

        assertThat(cache.invalidate(new Invalidation("u-1", 3, T0))).isEqualTo(InvalidationOutcome.STALE);
        assertThat(cache.invalidate(new Invalidation("u-1", 2, T0))).isEqualTo(InvalidationOutcome.STALE);
        assertThat(cache.getIfPresent("u-1")).isEqualTo("ada");
        assertThat(invalidations("stale")).isEqualTo(2);
    }

    @Test
    void afterAnInvalidation_anOlderValueIsRefused_theChangedOneTaken() {
        cache = open(100);
        cache.invalidate(new Invalidation("u-1", 5, T0));

        assertThat(cache.put("u-1", "before the change", 4)).isFalse();
        assertThat(cache.getIfPresent("u-1")).isNull();
        assertThat(cache.put("u-1", "the change", 5)).isTrue();
        assertThat(cache.getIfPresent("u-1")).isEqualTo("the change");
    }

    @Test
    void readThrough_loadsOnce_thenAgainPastTheFreshnessBound() {
        cache = open(100);
        AtomicInteger loads = new AtomicInteger();
        CacheLoader<String> loader = key -> new Versioned<>("ada#" + loads.incrementAndGet(), loads.get());

        assertThat(cache.get("u-1", loader)).isEqualTo("ada#1");
        assertThat(cache.get("u-1", loader)).isEqualTo("ada#1");
        clock.advance(Duration.ofMinutes(1));
        assertThat(cache.get("u-1", loader)).isEqualTo("ada#2");
        assertThat(loads).hasValue(2);
        assertThat(gets("miss")).isEqualTo(2);
    }

    @Test
    void readThrough_absent_isNotCached() {
        cache = open(100);
        AtomicInteger loads = new AtomicInteger();

        assertThat(cache.get("u-1", key -> { loads.incrementAndGet(); return null; })).isNull();
        assertThat(cache.get("u-1", key -> { loads.incrementAndGet(); return null; })).isNull();
        assertThat(loads).hasValue(2);
    }

    @Test
    void readThrough_loadOlderThanAnInvalidation_returnedButNotCached() {
        cache = open(100);
        cache.invalidate(new Invalidation("u-1", 7, T0));

        assertThat(cache.get("u-1", key -> new Versioned<>("lagging replica", 6))).isEqualTo("lagging replica");
        assertThat(cache.getIfPresent("u-1")).isNull();
    }

    @Test
    void evict_removesFromBothLevels_withoutATombstone() {
        cache = open(100);
        cache.put("u-1", "ada", 5);
        cache.evict("u-1");

        assertThat(cache.getIfPresent("u-1")).isNull();
        assertThat(cache.put("u-1", "older", 4)).isTrue();
    }

    @Test
    void clear_removesEverything_fromDiskToo() {
        cache = open(100);
        cache.put("u-1", "ada", 1);
        cache.put("u-2", "bob", 1);
        cache.clear();
        cache.close();

        cache = open(100);
        assertThat(cache.getIfPresent("u-1")).isNull();
        assertThat(cache.getIfPresent("u-2")).isNull();
    }

    @Test
    void purgeExpired_deletesWhatIsPastTheTtl() {
        cache = open(100);
        cache.put("u-1", "ada", 1);
        cache.invalidate(new Invalidation("u-2", 1, T0));
        clock.advance(Duration.ofMinutes(5));
        cache.put("u-3", "cy", 1);
        clock.advance(Duration.ofMinutes(5));

        assertThat(cache.purgeExpired()).isEqualTo(2);
        assertThat(cache.getIfPresent("u-3")).isNull(); // past its freshness bound, still on disk
        assertThat(cache.put("u-3", "older", 0)).isFalse();
    }

    @Test
    void builder_refusesBadOptions_sayingWhatWasExpected() {
        assertThatThrownBy(() -> TwoLevelCache.builder("Users!", ValueCodec.utf8()))
                .hasMessage("cache name: 'Users!' (expected: lower-case letters, digits, '.', '_' or '-', 1 to 64)");
        assertThatThrownBy(() -> TwoLevelCache.builder("users", ValueCodec.utf8()).maximumSize(-5))
                .hasMessage("cache 'users': maximumSize: -5 (expected: >= 0)");
        assertThatThrownBy(() -> TwoLevelCache.builder("users", ValueCodec.utf8()).ttl(Duration.ZERO))
                .hasMessage("cache 'users': ttl: PT0S (expected: at least 1 ms)");
        assertThatThrownBy(() -> TwoLevelCache.builder("users", ValueCodec.utf8()).build())
                .hasMessageStartingWith("cache 'users': directory: not set");
    }

    @Test
    void aDirectoryOpenInAnotherCache_isRefused_namingIt() {
        cache = open(100);
        assertThatThrownBy(() -> open(100))
                .isInstanceOf(CacheStoreException.class)
                .hasMessageContaining("cache 'users': cannot open " + dir);
    }
}
