package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.fence.FenceRecord;

/**
 * The embedded store on a full disk: a write that fails for lack of space leaves nothing behind, the next commit
 * once space is freed is acknowledged, and a restart reads it back.
 */
class StoreDiskFullTest {

    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    @TempDir
    Path dir;

    /** The next revision with a fence whose reason is {@code size} bytes long (bigger than a page). */
    private static ControlState fenced(ControlState s, String unit, int size) {
        return s.withFences(Map.of(unit, new FenceRecord(unit, "x".repeat(size), T0, "")))
                .at(s.revision() + 1, T0.plusSeconds(s.revision()));
    }

    private static EmbeddedStore open(Path data, FaultyDisk disk, SimpleMeterRegistry meters) {
        return new EmbeddedStore(data, EmbeddedStore.Limits.DEFAULT, disk, meters);
    }

    @Test
    void aShortWriteThenEnospc_leavesNoFragment_andTheNextAcknowledgedCommitSurvivesARestart() {
        FaultyDisk disk = new FaultyDisk();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (EmbeddedStore store = open(dir, disk, meters)) {
            store.commit(fenced(store.current(), "u-a", 100)).orElseThrow();
            disk.fillLeaving(1_000);

            assertThatThrownBy(() -> store.commit(fenced(store.current(), "u-b", 20_000)))
                    .hasMessageContaining("state.log: cannot write revision 2 (nothing was stored)")
                    .hasMessageContaining("No space left on device");
            assertThat(store.current().revision()).isEqualTo(1);
            assertThat(meters.counter("unitas.control.store.write.failures").count()).isEqualTo(1);

            disk.free();
            assertThat(store.commit(fenced(store.current(), "u-c", 20_000))).isPresent();
        }
        try (EmbeddedStore reopened = open(dir, new FaultyDisk(), meters)) {
            assertThat(reopened.current().revision()).isEqualTo(2);
            assertThat(reopened.current().fences()).containsOnlyKeys("u-c");
            assertThat(meters.counter("unitas.control.store.torn.tail.bytes").count()).isZero();
        }
    }

    @Test
    void whenTheFragmentCannotBeCutBack_writesAreRefusedUntilItCan_thenResume() {
        FaultyDisk disk = new FaultyDisk();
        try (EmbeddedStore store = open(dir, disk, new SimpleMeterRegistry())) {
            store.commit(fenced(store.current(), "u-a", 100)).orElseThrow();
            disk.fillLeaving(1_000);
            disk.truncateFails(true);
            assertThatThrownBy(() -> store.commit(fenced(store.current(), "u-b", 20_000)));

            disk.free();
            assertThatThrownBy(() -> store.commit(fenced(store.current(), "u-c", 100)))
                    .hasMessageContaining("a failed write could not be undone; refusing writes until it can");

            disk.truncateFails(false);
            assertThat(store.commit(fenced(store.current(), "u-d", 100))).isPresent();
        }
        try (EmbeddedStore reopened = open(dir, new FaultyDisk(), new SimpleMeterRegistry())) {
            assertThat(reopened.current().revision()).isEqualTo(2);
            assertThat(reopened.current().fences()).containsOnlyKeys("u-d");
        }
    }

    @Test
    void theAuditLogOnAFullDisk_losesNoAcknowledgedEntry() {
        FaultyDisk disk = new FaultyDisk();
        try (EmbeddedStore store = open(dir, disk, new SimpleMeterRegistry())) {
            store.audit(new AuditEntry(0, T0, "ops", "fence.add", "u-a", "ok", "", 1, "fenced u-a"));
            disk.fillLeaving(20);
            assertThatThrownBy(() -> store.audit(new AuditEntry(0, T0, "ops", "fence.add", "u-b", "ok", "", 2,
                                                                "fenced u-b")))
                    .hasMessageContaining("No space left on device");
            disk.free();
            assertThat(store.audit(new AuditEntry(0, T0, "ops", "fence.add", "u-c", "ok", "", 3, "fenced u-c"))
                            .seq()).isEqualTo(2);
        }
        try (EmbeddedStore reopened = open(dir, new FaultyDisk(), new SimpleMeterRegistry())) {
            assertThat(reopened.audit(0, 10)).extracting(AuditEntry::target).containsExactly("u-a", "u-c");
        }
    }

    @Test
    void onARealFullTmpfs_theFailedWriteLeavesNoFragment_andTheNextAcknowledgedCommitSurvivesARestart()
            throws Exception {
        SmallDisk disk = SmallDisk.mount(dir.resolve("mnt"), 256);
        if (disk == null) { // not root (CI is): the same story on the fault shim, so the test still runs
            LoggerFactory.getLogger(StoreDiskFullTest.class).warn("mount -t tmpfs not permitted; the full disk is "
                                                                   + "the fault shim's");
            aShortWriteThenEnospc_leavesNoFragment_andTheNextAcknowledgedCommitSurvivesARestart();
            return;
        }
        try (disk) {
            Path data = disk.root().resolve("data");
            try (EmbeddedStore store = new EmbeddedStore(data)) {
                store.commit(fenced(store.current(), "u-a", 100)).orElseThrow();
                disk.fillLeaving(4096);

                assertThatThrownBy(() -> store.commit(fenced(store.current(), "u-b", 20_000)))
                        .hasMessageContaining("state");
                assertThat(store.current().revision()).isEqualTo(1);

                disk.free();
                assertThat(store.commit(fenced(store.current(), "u-c", 20_000))).isPresent();
            }
            try (EmbeddedStore reopened = new EmbeddedStore(data)) {
                assertThat(reopened.current().revision()).isEqualTo(2);
                assertThat(reopened.current().fences()).containsOnlyKeys("u-c");
            }
        }
    }
}
