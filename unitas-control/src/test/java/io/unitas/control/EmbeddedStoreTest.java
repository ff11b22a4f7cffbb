package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.fence.FenceRecord;

class EmbeddedStoreTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");

    @TempDir
    Path dir;

    private static ControlState next(ControlState s) {
        return s.at(s.revision() + 1, T0.plusMillis(s.revision()));
    }

    /** The next revision carrying a fence whose reason is {@code size} characters long. */
    private static ControlState sized(ControlState s, int size) {
        return next(s.withFences(Map.of("u-a", new FenceRecord("u-a", "r".repeat(size), T0, ""))));
    }

    private static EmbeddedStore.Limits limits(int maxRecord, long compact) {
        return new EmbeddedStore.Limits(maxRecord, compact, AuditLog.Limits.DEFAULT);
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
    void theLogStaysWithinItsByteBudget_notACountOfCommits_andReplaysToTheLastState() throws Exception {
        long budget = 256 * 1024;
        try (EmbeddedStore store = new EmbeddedStore(dir, limits(64 * 1024, budget), ChannelOpener.SYSTEM,
                                                     new SimpleMeterRegistry())) {
            for (int i = 0; i < 200; i++) { // 200 states of 20 KB: 4 MB without compaction
                store.commit(sized(store.current(), 20_000));
                assertThat(Files.size(dir.resolve("state.log"))).isLessThanOrEqualTo(budget);
            }
        }
        try (EmbeddedStore reopened = new EmbeddedStore(dir)) {
            assertThat(reopened.current().revision()).isEqualTo(200);
        }
    }

    @Test
    void replayStreams_aLogLargerThanTheMemoryForOneRecordIsReadInBoundedPieces() throws Exception {
        int maxRecord = 256 * 1024;
        try (EmbeddedStore store = new EmbeddedStore(dir, limits(maxRecord, 64L << 20), ChannelOpener.SYSTEM,
                                                     new SimpleMeterRegistry())) {
            for (int i = 0; i < 100; i++) { // 100 states of 200 KB: a 20 MB log
                store.commit(sized(store.current(), 200_000));
            }
        }
        long size = Files.size(dir.resolve("state.log"));
        assertThat(size).isGreaterThan(20L * maxRecord);
        FaultyDisk disk = new FaultyDisk();
        try (EmbeddedStore reopened = new EmbeddedStore(dir, limits(maxRecord, 64L << 20), disk,
                                                        new SimpleMeterRegistry())) {
            assertThat(reopened.current().revision()).isEqualTo(100);
        }
        assertThat(disk.bytesRead()).isGreaterThanOrEqualTo(size); // every record was checked
        assertThat(disk.largestRead()).isLessThanOrEqualTo(maxRecord); // in pieces no bigger than one record
    }

    @Test
    void aStateBiggerThanTheRecordLimit_isRefused_andTheStoreKeepsItsState() {
        try (EmbeddedStore store = new EmbeddedStore(dir, limits(64 * 1024, 1 << 20), ChannelOpener.SYSTEM,
                                                     new SimpleMeterRegistry())) {
            store.commit(sized(store.current(), 100)).orElseThrow();

            assertThatThrownBy(() -> store.commit(sized(store.current(), 100_000)))
                    .isInstanceOf(RecordTooLargeException.class)
                    .hasMessageMatching("state\\.log: a record of \\d+ bytes \\(expected: 1\\.\\.65536\\)");
            assertThat(store.current().revision()).isEqualTo(1);
            assertThat(store.commit(sized(store.current(), 100))).isPresent();
        }
    }

    @Test
    void aTornTail_neverAcknowledged_isCutOffOnOpen_loggedAndCounted() throws Exception {
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            store.commit(next(store.current()));
            store.audit(new AuditEntry(0, T0, "ops", "fence.add", "u-a", "ok", "", 1, "fenced u-a"));
        }
        // a crash mid-write: a header promising 500 bytes and 30 of them
        appendBytes(dir.resolve("state.log"), ByteBuffer.allocate(38).putInt(500).putInt(123).array());
        appendBytes(onlySegment(), ByteBuffer.allocate(20).putInt(300).putInt(7).array());
        SimpleMeterRegistry meters = new SimpleMeterRegistry();

        try (EmbeddedStore store = new EmbeddedStore(dir, EmbeddedStore.Limits.DEFAULT, ChannelOpener.SYSTEM,
                                                     meters)) {
            assertThat(store.current().revision()).isEqualTo(1);
            assertThat(meters.counter("unitas.control.store.torn.tail.bytes").count()).isEqualTo(38);
            assertThat(meters.counter("unitas.control.audit.torn.tail.bytes").count()).isEqualTo(20);
            assertThat(store.commit(next(store.current()))).isPresent();
            assertThat(store.audit(new AuditEntry(0, T0, "ops", "fence.lift", "u-a", "ok", "", 2, "")).seq())
                    .isEqualTo(2);
        }
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            assertThat(store.current().revision()).isEqualTo(2);
            assertThat(store.audit(0, 10)).extracting(AuditEntry::action).containsExactly("fence.add", "fence.lift");
        }
    }

    @Test
    void corruptionBeforeTheEnd_stopsTheStartWithTheFileAndOffset() throws Exception {
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            store.commit(next(store.current()));
            store.commit(next(store.current()));
        }
        Path log = dir.resolve("state.log");
        try (FileChannel c = FileChannel.open(log, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(new byte[] {'X'}), RecordFile.MAGIC.length + 20); // inside the first record
        }

        assertThatThrownBy(() -> new EmbeddedStore(dir))
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageContaining(log + ": offset 8: record of ")
                .hasMessageContaining("fails its checksum");
    }

    @Test
    void aLogOfTheFirstVersion_isMigratedOnce_withItsLastCompleteStateAndItsAudit() throws Exception {
        ControlState one = next(ControlState.initial());
        ControlState two = sized(one, 10);
        Files.writeString(dir.resolve("state.log"), StateJson.write(StateJson.state(one)) + "\n"
                + StateJson.write(StateJson.state(two)) + "\n{\"revision\":3,\"upd", StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("audit.log"), StateJson.write(new AuditEntry(1, T0, "ops", "fence.add", "u-a",
                "ok", "", 2, "fenced u-a").toJson()) + "\n{\"seq\":2,", StandardCharsets.UTF_8);

        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            assertThat(store.current()).isEqualTo(two);
            assertThat(store.audit(0, 10)).extracting(AuditEntry::seq, AuditEntry::target)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, "u-a"));
            assertThat(store.audit(new AuditEntry(0, T0, "ops", "fence.lift", "u-a", "ok", "", 3, "")).seq())
                    .isEqualTo(2);
        }
        assertThat(dir.resolve("audit.log")).doesNotExist();
        try (EmbeddedStore again = new EmbeddedStore(dir)) {
            assertThat(again.current().revision()).isEqualTo(2);
            assertThat(again.audit(0, 10)).hasSize(2);
        }
    }

    @Test
    void anOldAuditLogOf20000Entries_isMigratedWithAForcePerSegment_notPerEntry() throws Exception {
        StringBuilder lines = new StringBuilder();
        for (int seq = 1; seq <= 20_000; seq++) {
            lines.append(StateJson.write(new AuditEntry(seq, T0.plusSeconds(seq), "ops", "fence.add", "u-" + seq, "ok",
                                                        "drill", seq, "fenced u-" + seq).toJson())).append('\n');
        }
        Files.writeString(dir.resolve("audit.log"), lines, StandardCharsets.UTF_8);
        FaultyDisk disk = new FaultyDisk();

        try (EmbeddedStore store = new EmbeddedStore(dir, EmbeddedStore.Limits.DEFAULT, disk,
                                                     new SimpleMeterRegistry())) {
            assertThat(store.audit(19_990, 100)).extracting(AuditEntry::seq)
                    .containsExactly(19_991L, 19_992L, 19_993L, 19_994L, 19_995L, 19_996L, 19_997L, 19_998L, 19_999L,
                                     20_000L);
            assertThat(disk.forces()).as("forces for 20,000 migrated entries (4 MiB segments)").isLessThan(20);
            assertThat(store.audit(new AuditEntry(0, T0, "ops", "fence.lift", "u-1", "ok", "", 3, "")).seq())
                    .isEqualTo(20_001);
        }
        assertThat(dir.resolve("audit.log")).doesNotExist();
        try (EmbeddedStore again = new EmbeddedStore(dir)) {
            assertThat(again.audit(0, 10_000)).hasSize(10_000).last().extracting(AuditEntry::seq).isEqualTo(20_001L);
        }
    }

    @Test
    void aDamagedLineInsideAnOldAuditLog_isNamedWithItsFileAndLine_andTheOldLogIsKept() throws Exception {
        Path old = dir.resolve("audit.log");
        Files.writeString(old, StateJson.write(new AuditEntry(1, T0, "ops", "fence.add", "u-a", "ok", "", 2, "")
                .toJson()) + "\n{\"seq\":2,\n" + StateJson.write(new AuditEntry(3, T0, "ops", "fence.lift", "u-a", "ok",
                "", 3, "").toJson()) + "\n", StandardCharsets.UTF_8);

        assertThatThrownBy(() -> new EmbeddedStore(dir).close())
                .isInstanceOf(StoreCorruptedException.class)
                .hasMessageStartingWith(old + ":2: ")
                .hasMessageContaining("not an audit entry");
        assertThat(old).exists();
    }

    private Path onlySegment() throws Exception {
        try (var files = Files.list(dir.resolve("audit"))) {
            return files.findFirst().orElseThrow();
        }
    }

    private static void appendBytes(Path file, byte[] bytes) throws Exception {
        Files.write(file, bytes, StandardOpenOption.APPEND);
    }
}
