package io.unitas.data.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.crdt.LwwRegister;
import io.unitas.core.crdt.OrMap;
import io.unitas.core.crdt.OrSet;
import io.unitas.core.crdt.PnCounter;
import io.unitas.core.crdt.Siblings;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The state codecs: each state comes back equal, and equal states reached in different orders give equal bytes (what
 * reconciliation's digests compare).
 */
class CodecTest {

    private static final Codec<OrMap<String, Long>> CART = Codec.orMap(
            Codec.utf8(), Codec.of(v -> Long.toString(v).getBytes(), b -> Long.parseLong(new String(b))), Math::max);

    @Test
    void everyStateRoundTrips() {
        LwwRegister<String> lww = LwwRegister.initial("cn", "Alice", 5).merge(LwwRegister.initial("eu", "Al", 4));
        PnCounter counter = PnCounter.zero().add("cn", 3).add("eu", -2);
        OrSet<String> set = OrSet.<String>empty().add("cn", "a").add("eu", "b").remove("a");
        OrMap<String, Long> map = OrMap.<String, Long>empty(Math::max).put("cn", "book", 5L)
                .merge(OrMap.<String, Long>empty(Math::max).put("eu", "book", 3L));
        Siblings<String> siblings = Siblings.<String>empty().write("cn", "x")
                .merge(Siblings.<String>empty().write("eu", "y"));

        assertThat(roundTrip(Codec.lww(Codec.utf8()), lww)).isEqualTo(lww);
        assertThat(roundTrip(Codec.counter(), counter)).isEqualTo(counter);
        assertThat(roundTrip(Codec.orSet(Codec.utf8()), set)).isEqualTo(set);
        assertThat(roundTrip(CART, map).asMap()).isEqualTo(map.asMap());
        assertThat(roundTrip(CART, map).entries()).isEqualTo(map.entries());
        assertThat(roundTrip(Codec.siblings(Codec.utf8()), siblings)).isEqualTo(siblings);
    }

    @Test
    void equalStatesReachedInAnotherOrder_encodeToEqualBytes() {
        List<OrSet<String>> adds = List.of(OrSet.<String>empty().add("cn", "a"), OrSet.<String>empty().add("eu", "b"),
                                           OrSet.<String>empty().add("us", "c"));
        OrSet<String> forward = adds.get(0).merge(adds.get(1)).merge(adds.get(2));
        OrSet<String> backward = adds.get(2).merge(adds.get(1)).merge(adds.get(0));
        Codec<OrSet<String>> codec = Codec.orSet(Codec.utf8());

        assertThat(codec.encode(forward)).isEqualTo(codec.encode(backward));
        OrMap<String, Long> m1 = OrMap.<String, Long>empty(Math::max).put("cn", "a", 1L).put("cn", "b", 2L);
        OrMap<String, Long> m2 = OrMap.<String, Long>empty(Math::max).put("eu", "c", 3L);
        assertThat(CART.encode(m1.merge(m2))).isEqualTo(CART.encode(m2.merge(m1)));
    }

    @Test
    void bytesOfAnotherKind_orTruncated_areRefusedSayingWhatWasExpected() {
        byte[] counter = Codec.counter().encode(PnCounter.zero().add("cn", 1));

        assertThatThrownBy(() -> Codec.orSet(Codec.utf8()).decode(counter))
                .hasMessage("state: tag 2 (expected: an OR-set, tag 3)");
        assertThatThrownBy(() -> Codec.counter().decode(java.util.Arrays.copyOf(counter, counter.length - 3)))
                .hasMessage("state: truncated (expected: a PN-counter)");
        assertThatThrownBy(() -> Codec.counter().decode(new byte[0])).hasMessage(
                "state: no bytes (expected: a PN-counter, tag 2)");
    }

    private static <S> S roundTrip(Codec<S> codec, S state) {
        return codec.decode(codec.encode(state));
    }
}
