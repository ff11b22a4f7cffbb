package io.unitas.resolver;

import static io.unitas.testkit.Fuzz.expectOnly;
import static io.unitas.testkit.Fuzz.mutate;
import static io.unitas.testkit.Fuzz.seed;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import com.code_intelligence.jazzer.junit.FuzzTest;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * The fallback pool's reader, fed bytes it did not expect: it returns a pool or refuses with
 * {@link IllegalArgumentException}, never anything else. A coverage-guided run (docs/robustness.md):
 * {@code JAZZER_FUZZ=1 mvn -pl unitas-resolver -am verify -Dtest=PoolFileFuzzTest#fuzzPool
 * -Dsurefire.failIfNoSpecifiedTests=false -Djazzer.max_duration=10m}.
 */
class PoolFileFuzzTest {

    private static final int TRIES = 300;

    static void binary(byte[] in) {
        expectOnly(in, b -> FallbackPool.decode("dns-fallback.bin", b), IllegalArgumentException.class);
    }

    static void text(byte[] in) {
        expectOnly(in, b -> FallbackPool.decode("dns-fallback.txt", b), IllegalArgumentException.class);
    }

    @Test
    void theSeedsAreValidPools() {
        assertThat(FallbackPool.decode("p.bin", seed(getClass(), "/fuzz/pool.bin")).addresses()).hasSize(3);
        assertThat(FallbackPool.decode("p.txt", seed(getClass(), "/fuzz/pool.txt")).addresses()).hasSize(3);
    }

    @Property(tries = TRIES)
    void binary_mutated(@ForAll long random) {
        binary(mutate(seed(getClass(), "/fuzz/pool.bin"), new Random(random)));
    }

    @Property(tries = TRIES)
    void text_mutated(@ForAll long random) {
        text(mutate(seed(getClass(), "/fuzz/pool.txt"), new Random(random)));
    }

    @FuzzTest
    void fuzzPool(byte[] in) {
        binary(in);
        text(in);
    }
}
