package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * What callers can make the audit log hold, and what reading it costs: bounded by bytes, however many requests
 * arrive, and read from the tail.
 */
class AuditLogTest {

    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    @TempDir
    Path dir;

    private static AuditEntry refusal(Instant at, String reason) {
        return new AuditEntry(0, at, "anonymous", "state.read", "/api/v1/state", "unauthenticated", reason, 0,
                              "no bearer token (expected: Authorization: Bearer <token>)");
    }

    private long bytesOnDisk() throws Exception {
        try (var files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    @Test
    void aThousandAnonymousRefusalsWithLongReasons_inOneMinute_areOneEntryAndACount() throws Exception {
        String reason = "r".repeat(7_700);
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            for (int i = 0; i < 1_000; i++) {
                store.audit(refusal(T0.plusMillis(i * 50L), reason));
            }
            assertThat(bytesOnDisk()).isLessThan(16 * 1024);
            List<AuditEntry> entries = store.audit(0, 10);
            assertThat(entries).hasSize(1);
            assertThat(entries.get(0).reason()).hasSize(256).endsWith("r… (7468 more characters)");
            assertThat(entries.get(0).count()).isEqualTo(1);

            store.audit(refusal(T0.plusSeconds(61), "later"));

            List<AuditEntry> after = store.audit(0, 10);
            assertThat(after).extracting(AuditEntry::count).containsExactly(1L, 999L, 1L);
            assertThat(after.get(1).detail()).startsWith("999 more like entry 1 from " + T0 + " to "
                                                          + T0.plusMillis(999 * 50L));
        }
    }

    @Test
    void changesAreNeverAggregated_refusalsAreKeptApartByActorAndAction_andAPendingCountIsWrittenOnClose() {
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            for (int i = 0; i < 3; i++) {
                store.audit(change(i + 1));
                store.audit(refusal(T0.plusSeconds(i), ""));
                store.audit(new AuditEntry(0, T0.plusSeconds(i), "watcher", "rules.replace", "rules", "forbidden", "",
                                           0, "role viewer (expected: operator or above)"));
            }
        }
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            assertThat(store.audit(0, 100)).extracting(e -> e.actor() + " " + e.outcome() + " " + e.count())
                    .containsExactly("ops ok 1", "anonymous unauthenticated 1", "watcher forbidden 1", "ops ok 1",
                                     "ops ok 1", "anonymous unauthenticated 2", "watcher forbidden 2");
        }
    }

    private static AuditEntry change(int i) {
        return new AuditEntry(0, T0.plusSeconds(i), "ops", "fence.add", "u-" + i, "ok", "", i, "d".repeat(2_000));
    }

    private static EmbeddedStore store(Path dir, AuditLog.Limits audit, ChannelOpener opener) {
        return new EmbeddedStore(dir, new EmbeddedStore.Limits(16 << 20, 64L << 20, audit), opener,
                                 new SimpleMeterRegistry());
    }

    @Test
    void segmentsRotateBySize_andTheOldestGoWhenTheLogOutgrowsItsBudget() throws Exception {
        AuditLog.Limits small = new AuditLog.Limits(16 * 1024, 64 * 1024, 256, 2_048, java.time.Duration.ofMinutes(1));
        try (EmbeddedStore store = store(dir, small, ChannelOpener.SYSTEM)) {
            for (int i = 1; i <= 150; i++) { // about 350 KB of entries
                store.audit(change(i));
                assertThat(bytesOnDisk()).isLessThanOrEqualTo(64 * 1024 + 16 * 1024);
            }
            List<AuditEntry> newest = store.audit(0, 3);
            assertThat(newest).extracting(AuditEntry::seq).containsExactly(148L, 149L, 150L);
            long oldestKept = store.audit(0, 10_000).get(0).seq();
            assertThat(oldestKept).isGreaterThan(50);
            assertThat(store.audit(oldestKept + 4, 2)).extracting(AuditEntry::seq)
                                                      .containsExactly(149L, 150L);
        }
        try (var files = Files.list(dir.resolve("audit"))) {
            assertThat(files.count()).isBetween(4L, 6L);
        }
    }

    @Test
    void limitOne_readsOnlyTheEndOfTheNewestSegment_andStartingReadsOnlyTheNewestSegment() throws Exception {
        AuditLog.Limits limits = new AuditLog.Limits(64 * 1024, 64L << 20, 256, 2_048, java.time.Duration.ofMinutes(1));
        try (EmbeddedStore store = store(dir, limits, ChannelOpener.SYSTEM)) {
            for (int i = 1; i <= 300; i++) { // about 700 KB in 11 segments
                store.audit(change(i));
            }
        }
        FaultyDisk disk = new FaultyDisk();
        try (EmbeddedStore store = store(dir, limits, disk)) {
            long opening = disk.bytesRead();
            // the newest segment, checked, and its last entry read again; not the 700 KB before it
            assertThat(opening).isLessThanOrEqualTo(64 * 1024 + 4 * 1024);

            assertThat(store.audit(0, 1)).extracting(AuditEntry::seq).containsExactly(300L);
            assertThat(disk.bytesRead() - opening).isLessThan(4 * 1024);

            assertThat(store.audit(10, 2)).extracting(AuditEntry::seq).containsExactly(299L, 300L);
        }
    }
}
