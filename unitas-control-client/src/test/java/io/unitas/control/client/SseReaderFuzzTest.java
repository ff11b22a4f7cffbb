package io.unitas.control.client;

import static io.unitas.testkit.Fuzz.mutate;
import static io.unitas.testkit.Fuzz.seed;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import com.code_intelligence.jazzer.junit.FuzzTest;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import io.unitas.testkit.Fuzz;

/**
 * The watch stream as a control plane (or anything in its place) may send it: every event is delivered or reported
 * bad, the reader never throws, and a revision it delivers is a whole number >= 0. {@code verify} runs mutations of a
 * real stream; a coverage-guided run: {@code JAZZER_FUZZ=1 mvn -pl unitas-control-client -am verify
 * -Dtest=SseReaderFuzzTest#fuzzStream -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class SseReaderFuzzTest {

    static void stream(byte[] in) {
        Fuzz.expectOnly(in, bytes -> {
            SseReader reader = new SseReader();
            SseReader.Sink sink = new SseReader.Sink() {
                @Override
                public void state(long revision, String data) {
                    if (revision < 0) {
                        throw new AssertionError("revision " + revision + " delivered");
                    }
                }

                @Override
                public void bad(String why) {
                    if (why.isBlank()) {
                        throw new AssertionError("a bad event without a reason");
                    }
                }
            };
            new String(bytes, StandardCharsets.UTF_8).lines().forEach(line -> reader.line(line, sink));
            reader.line("", sink);
        });
    }

    @Property(tries = 500)
    void stream_mutated(@ForAll long random) {
        stream(mutate(seed(getClass(), "/fuzz/watch.sse"), new Random(random)));
    }

    @FuzzTest
    void fuzzStream(byte[] in) {
        stream(in);
    }
}
