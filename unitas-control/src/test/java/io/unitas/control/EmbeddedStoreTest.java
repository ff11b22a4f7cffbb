package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedStoreTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");

    @TempDir
    Path dir;

    private static ControlState next(ControlState s) {
        return s.at(s.revision() + 1, T0.plusMillis(s.revision()));
    }

    @Test
    void aCommitLandsOnlyOnTheRevisionAfterTheCurrentOne_andListenersSeeItInOrder() {
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            List<Long> seen = new ArrayList<>();
            store.subscribe(s -> seen.add(s.revision()));
            ControlState first = store.commit(next(store.current())).orElseThrow();

            assertThat(store.commit(first.at(1, T0))).isEmpty();
            assertThat(store.commit(first.at(3, T0))).isEmpty();
            store.commit(next(first));

            assertThat(seen).containsExactly(1L, 2L);
        }
    }

    @Test
    void theLogIsCompacted_andReplaysToTheLastState() throws Exception {
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            for (int i = 0; i < EmbeddedStore.COMPACT_EVERY + 5; i++) {
                store.commit(next(store.current()));
            }
        }
        // the state compacted at revision COMPACT_EVERY, and the five after it
        assertThat(Files.readAllLines(dir.resolve("state.log"))).hasSize(6);
        try (EmbeddedStore reopened = new EmbeddedStore(dir)) {
            assertThat(reopened.current().revision()).isEqualTo(EmbeddedStore.COMPACT_EVERY + 5L);
        }
    }

    @Test
    void aTornLastLine_neverAcknowledged_isCutOffOnOpen() throws Exception {
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            store.commit(next(store.current()));
            store.audit(new AuditEntry(0, T0, "ops", "fence.add", "u-a", "ok", "", 1, "fenced u-a"));
        }
        Files.writeString(dir.resolve("state.log"), "{\"revision\":2,\"upd", StandardCharsets.UTF_8,
                          StandardOpenOption.APPEND);
        Files.writeString(dir.resolve("audit.log"), "{\"seq\":2,", StandardCharsets.UTF_8, StandardOpenOption.APPEND);

        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            assertThat(store.current().revision()).isEqualTo(1);
            assertThat(store.commit(next(store.current()))).isPresent();
            assertThat(store.audit(new AuditEntry(0, T0, "ops", "fence.lift", "u-a", "ok", "", 2, "")).seq())
                    .isEqualTo(2);
        }
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            assertThat(store.current().revision()).isEqualTo(2);
            assertThat(store.audit(0, 10)).extracting(AuditEntry::action).containsExactly("fence.add", "fence.lift");
        }
    }
}
