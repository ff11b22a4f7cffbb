package io.unitas.core.crdt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The worked example of {@link MergePolicy}'s Javadoc, as written there. */
class MergePolicyTest {

    @Test
    void theJavadocsExample_holds() {
        MergePolicy<PnCounter> likes = MergePolicy.counter();
        MergePolicy<Siblings<String>> address = MergePolicy.siblings();

        PnCounter inCn = PnCounter.zero().add("cn", 3);
        PnCounter inEu = PnCounter.zero().add("eu", 2);
        assertThat(likes.merge(inCn, inEu).value()).isEqualTo(5);

        Siblings<String> cnAddress = Siblings.<String>empty().write("cn", "1 Main St");
        Siblings<String> euAddress = Siblings.<String>empty().write("eu", "2 Rue Haute");
        Siblings<String> stored = address.merge(cnAddress, euAddress);
        assertThat(address.isConflict(stored)).isTrue();
        assertThat(stored.values()).isEqualTo(List.of("1 Main St", "2 Rue Haute"));
        Siblings<String> resolved = stored.resolve("cn", "2 Rue Haute");
        assertThat(address.isConflict(resolved)).isFalse();
        assertThat(address.merge(resolved, stored)).isEqualTo(resolved);
    }

    @Test
    void policiesThatAlwaysMerge_reportNoConflict() {
        assertThat(MergePolicy.counter().isConflict(PnCounter.zero().add("cn", 1))).isFalse();
        assertThat(MergePolicy.<String>lastWriterWins().isConflict(LwwRegister.initial("cn", "a", 1))).isFalse();
        assertThat(MergePolicy.<String>orSet().isConflict(OrSet.<String>empty().add("cn", "a"))).isFalse();
    }
}
