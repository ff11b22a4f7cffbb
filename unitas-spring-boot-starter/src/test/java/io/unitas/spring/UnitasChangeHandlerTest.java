package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeEnvelope;
import org.junit.jupiter.api.Test;

/** Declaring change handlers: what a wrong declaration, or a payload of another codec, says. */
class UnitasChangeHandlerTest {

    private static final UnitasEntity<Long> COUNTER = UnitasEntity.<Long>builder("counter", key -> Optional.empty())
            .codec(v -> v.toString().getBytes(StandardCharsets.UTF_8),
                   b -> Long.parseLong(new String(b, StandardCharsets.UTF_8)))
            .build();

    @Test
    void aPayloadThisRegionsCodecCannotDecode_isRefusedNamingTheTypeTheChangeAndWhatWasExpected() {
        UnitasChangeHandler handler = UnitasChangeHandler.of(COUNTER, (tx, key, value) -> {});
        ChangeEnvelope change = new ChangeEnvelope("u-us", Region.of("us"), 7, 0, "counter", "70",
                                                   "{\"n\":1}".getBytes(StandardCharsets.UTF_8), Instant.EPOCH);

        assertThatThrownBy(() -> handler.handler().apply(null, change))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("entity 'counter' 70 of change us/u-us#7: 7 bytes this region's codec cannot"
                                        + " decode (expected: the same codec in every region)");
    }

    @Test
    void aDecodedPayload_reachesTheWriterWithItsKey() throws Exception {
        List<String> written = new ArrayList<>();
        UnitasChangeHandler handler = UnitasChangeHandler.of(COUNTER, (tx, key, value) -> written.add(key + "=" + value));

        handler.handler().apply(null, new ChangeEnvelope("u-us", Region.of("us"), 7, 0, "counter", "70",
                                                         "41".getBytes(StandardCharsets.UTF_8), Instant.EPOCH));

        assertThat(written).containsExactly("70=41");
    }

    @Test
    void twoHandlersOfOneType_andAWrongTypeName_areOneLineEach() {
        List<String> problems = new ArrayList<>();
        UnitasChangeHandler.byType(List.of(UnitasChangeHandler.of("note", (tx, c) -> {}),
                                           UnitasChangeHandler.of("note", (tx, c) -> {})), problems);

        assertThat(problems).containsExactly("UnitasChangeHandler 'note': declared twice (expected: one bean per"
                                             + " entity type)");
        assertThatThrownBy(() -> UnitasChangeHandler.of("Notes!", (tx, c) -> {}))
                .isInstanceOf(UnitasConfigurationException.class)
                .hasMessage("entity type: 'Notes!' (expected: lowercase letters, digits, '.', '_' or '-', at most 64)");
        assertThatThrownBy(() -> UnitasEntity.builder("wallet", key -> Optional.empty()).build())
                .isInstanceOf(UnitasConfigurationException.class)
                .hasMessage("UnitasEntity 'wallet': codec not set (expected: codec(encode, decode))");
    }
}
