package io.unitas.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.Region;
import io.unitas.core.fence.TokenBucket;
import io.unitas.data.store.StoreResult;
import io.unitas.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** The outcomes that {@code LedgerServiceTest} does not reach: merged entities, rebuilds, settings. */
class DataReadinessTest {

    static final Region CN = Region.of("cn");
    static final Region EU = Region.of("eu");

    final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    final Map<Region, Map<String, Set<String>>> tags = Map.of(CN, new ConcurrentHashMap<>(),
                                                               EU, new ConcurrentHashMap<>());
    final Set<Region> down = ConcurrentHashMap.newKeySet();

    StoreResult<Set<String>> read(Region region, String user) {
        if (down.contains(region)) {
            return StoreResult.unavailable(region, "switched off");
        }
        Set<String> found = tags.get(region).get(user);
        return found == null ? StoreResult.notFound(region, "tags", user) : StoreResult.ok(found);
    }

    DataReadiness.Builder<String, Set<String>> servedInEu() {
        return DataReadiness.<String, Set<String>>builder().region(EU).homes(HomeResolver.always(CN))
                            .local(user -> read(EU, user)).home(this::read);
    }

    @Test
    void mergedEntity_combinesBothCopies_andStaysAvailableWhileTheHomeIsDown() {
        DataReadiness<String, Set<String>> merged = servedInEu().merge((a, b) -> {
            Set<String> union = new TreeSet<>(a);
            union.addAll(b);
            return union;
        }).build();
        tags.get(CN).put("alice", Set.of("book"));
        tags.get(EU).put("alice", Set.of("cup"));
        ReadinessResult<Set<String>> both = merged.read("alice");
        assertThat(both.outcome()).isEqualTo(ReadinessResult.Outcome.HOME);
        assertThat(both.value()).containsExactly("book", "cup");

        down.add(CN);
        assertThat(merged.read("alice").value()).containsExactly("cup");
        assertThat(merged.read("bob").outcome()).as("absent here, home down").isEqualTo(
                ReadinessResult.Outcome.NOT_READY);
        down.remove(CN);
        assertThat(merged.read("bob").outcome()).as("absent in both").isEqualTo(ReadinessResult.Outcome.NOT_FOUND);
    }

    @Test
    void rebuildableEntity_isRebuiltAtTheBucketsPace_whenNobodyCanVouchForIt() {
        long start = clock.instant().toEpochMilli() * 1_000_000;
        DataReadiness<String, Set<String>> sessions = servedInEu()
                .rebuilds(TokenBucket.of(1.0, 2, () -> clock.instant().toEpochMilli() * 1_000_000 - start)).build();
        down.add(CN);
        assertThat(sessions.read("t1").outcome()).isEqualTo(ReadinessResult.Outcome.REBUILD);
        assertThat(sessions.read("t2").outcome()).isEqualTo(ReadinessResult.Outcome.REBUILD);
        ReadinessResult<Set<String>> limited = sessions.read("t3");
        assertThat(limited.outcome()).isEqualTo(ReadinessResult.Outcome.NOT_READY);
        assertThat(limited.problem().retryAfter()).isEqualTo(Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));
        assertThat(sessions.read("t3").outcome()).isEqualTo(ReadinessResult.Outcome.REBUILD);

        down.remove(CN);
        assertThat(sessions.read("t4").outcome()).as("the home says it does not exist: no rebuild")
                .isEqualTo(ReadinessResult.Outcome.NOT_FOUND);
    }

    @Test
    void inTheHomeRegion_itsOwnAnswerIsAuthoritative() {
        DataReadiness<String, Set<String>> inCn = DataReadiness.<String, Set<String>>builder().region(CN)
                .homes(HomeResolver.always(CN)).local(user -> read(CN, user))
                .home((home, user) -> {
                    throw new AssertionError("the home region never reads itself remotely");
                }).build();
        assertThat(inCn.read("alice").outcome()).isEqualTo(ReadinessResult.Outcome.NOT_FOUND);
        down.add(CN);
        assertThat(inCn.read("alice").detail())
                .isEqualTo("entity 'alice' cannot be read in its home region cn"
                           + " (cn: store is unavailable: switched off)");
    }

    @Test
    void aLocalReadThatThrows_countsAsUnavailable() {
        tags.get(CN).put("alice", Set.of("book"));
        DataReadiness<String, Set<String>> r = servedInEu().local(user -> {
            throw new IllegalStateException("pool exhausted");
        }).build();
        assertThat(r.read("alice").outcome()).isEqualTo(ReadinessResult.Outcome.HOME);
    }

    @Test
    void builder_namesWhatIsMissing() {
        assertThatThrownBy(() -> DataReadiness.<String, String>builder().region(EU).build())
                .hasMessage("region, homes, local: eu, null, null (expected: all set)");
        assertThatThrownBy(() -> servedInEu().merge((a, b) -> a).rebuilds(TokenBucket.of(1, 1, () -> 0)).build())
                .hasMessageStartingWith("merge and rebuilds: both set");
        assertThatThrownBy(() -> servedInEu().homeTimeout(Duration.ZERO))
                .hasMessage("home_timeout: PT0S (expected: > 0)");
    }
}
