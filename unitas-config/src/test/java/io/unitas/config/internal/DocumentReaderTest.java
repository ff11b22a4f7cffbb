package io.unitas.config.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.unitas.config.ConfigException;


class DocumentReaderTest {

    /** A reader of one small format: every field of it wrong, to see each problem in its one shape. */
    static final class Sample extends DocumentReader {
        Sample(String yaml) {
            super(ConfigDocument.parse("sample.yaml", yaml));
        }

        void readAll() {
            var root = object(doc.root(), "", List.of("name", "on", "count", "every", "lag", "nested"));
            text(root.get("name"), "name", "x");
            bool(root.get("on"), "on", false);
            wholeNumber(root.get("count"), "count", 1, 1);
            duration(root.get("every"), "every", Duration.ofSeconds(1));
            durationOrZero(root.get("lag"), "lag", Duration.ZERO);
            object(root.get("nested"), "nested", Set.of("b", "a"));
            throwIfProblems();
        }
    }

    @Test
    void everyProblemOfADocumentIsReportedAtOnce_eachWithItsLineAndWhatWasExpected() {
        assertThatThrownBy(() -> new Sample("""
                name: [a]
                on: yes please
                count: 0
                every: 0s
                lag: soon
                nested: {c: 1}
                colour: red
                """).readAll())
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactly(
                        "sample.yaml:7: colour: unknown key (expected one of: name, on, count, every, lag, nested)",
                        "sample.yaml:1: name: [\"a\"] (expected: text)",
                        "sample.yaml:2: on: \"yes please\" (expected: true or false)",
                        "sample.yaml:3: count: 0 (expected: a whole number >= 1)",
                        "sample.yaml:4: every: '0s' (expected: a duration above 0, like 500ms, 5s, 2m or 1h)",
                        "sample.yaml:5: lag: 'soon' (expected: a duration like 500ms, 5s, 2m or 1h)",
                        "sample.yaml:6: nested.c: unknown key (expected one of: a, b)"));
    }

    @Test
    void absentFieldsTakeTheirFallbacks_andZeroIsATolerance() {
        Sample s = new Sample("lag: 0s\n");
        s.readAll();
        assertThat(s.durationOrZero(s.doc.root().get("lag"), "lag", Duration.ofSeconds(9))).isZero();
        assertThat(s.duration(null, "every", Duration.ofSeconds(9))).isEqualTo(Duration.ofSeconds(9));
        assertThat(s.text(null, "name", "fallback")).isEqualTo("fallback");
    }
}
