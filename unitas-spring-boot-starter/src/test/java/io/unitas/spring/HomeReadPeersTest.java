package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.unitas.core.Region;
import org.junit.jupiter.api.Test;

/** The comparison of this region's entity declarations with a peer's, one line per mismatch. */
class HomeReadPeersTest {

    private static UnitasEntity<String> entity(String type, String codecId) {
        UnitasEntity.Builder<String> b = UnitasEntity.<String>builder(type, key -> Optional.empty())
                .codec(String::getBytes, String::new);
        return (codecId == null ? b : b.codecId(codecId)).build();
    }

    @Test
    void theSameDeclarations_match_andTypesOnlyThePeerServes_areNotOurs() {
        assertThat(HomeReadPeers.mismatches("eu", List.of(entity("wallet", "w/1"), entity("note", null)),
                                            Region.of("us"), Map.of("wallet", "w/1", "note", "", "other", "x/9")))
                .isEmpty();
    }

    @Test
    void aTypeThePeerDoesNotServe_andACodecIdOnOneSideOnly_areOneLineEach() {
        assertThat(HomeReadPeers.mismatches("eu", List.of(entity("wallet", null), entity("note", "n/1")),
                                            Region.of("us"), Map.of("wallet", "w/1")))
                .containsExactly("UnitasEntity 'wallet': codec without codecId in region eu, codec 'w/1' in region us"
                                 + " (expected: the same codecId in every region)",
                                 "UnitasEntity 'note': declared in region eu (codec 'n/1'), not served by region us"
                                 + " (it serves [wallet]; expected: the same entity declarations in every region)");
    }
}
