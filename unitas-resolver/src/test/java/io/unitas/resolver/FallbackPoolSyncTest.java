package io.unitas.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import io.unitas.control.client.ControlClient;
import io.unitas.testkit.Await;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fallback pool a real control plane publishes, fetched, verified and kept on disk: a pool corrupted on its way is
 * refused with one line and the copy on disk stays; so does an unreachable control plane; a corrupted file found at
 * start is refused.
 */
class FallbackPoolSyncTest {

    private static final ControlToken VIEWER = ControlToken.generate("pool-reader", Role.VIEWER);

    @TempDir
    Path dir;
    private ControlServer control;
    private ControlClient client;
    private Path file;

    @BeforeEach
    void start() throws Exception {
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, VIEWER.fileLine() + "\n");
        control = ControlServer.builder().port(0).dataDir(dir.resolve("control")).tokens(tokens)
                               .fallbackPool(List.of(InetAddress.getByName("10.0.0.1"),
                                                     InetAddress.getByName("10.0.0.2"))).start();
        client = ControlClient.of(control.uri(), VIEWER.secret());
        file = dir.resolve("fallback-pool.bin");
    }

    @AfterEach
    void stop() {
        control.close();
    }

    @Test
    void the_published_pool_is_verified_and_kept_on_disk_where_a_later_start_finds_it() throws Exception {
        try (FallbackPoolSync sync = FallbackPoolSync.create(FallbackPoolSync.Source.controlPlane(client), file)) {
            FallbackPoolSync.Outcome outcome = sync.refresh();

            assertThat(outcome.kept()).as(outcome.problem()).isTrue();
            assertThat(sync.pool().encodeText()).isEqualTo("10.0.0.1\n10.0.0.2\n");
        }
        control.close();
        try (FallbackPoolSync later = FallbackPoolSync.create(FallbackPoolSync.Source.controlPlane(client), file)) {
            assertThat(later.pool().encodeText()).as("read from disk, the control plane gone")
                                                 .isEqualTo("10.0.0.1\n10.0.0.2\n");
            FallbackPoolSync.Outcome unreachable = later.refresh();
            assertThat(unreachable.kept()).isFalse();
            assertThat(unreachable.problem()).contains("cannot connect").doesNotContain("\n");
            assertThat(later.pool().addresses()).hasSize(2);
        }
    }

    @Test
    void a_pool_corrupted_on_its_way_is_refused_with_one_line_and_the_copy_on_disk_is_kept() throws Exception {
        FallbackPoolSync.Source published = FallbackPoolSync.Source.controlPlane(client);
        try (FallbackPoolSync sync = FallbackPoolSync.create(published, file)) {
            assertThat(sync.refresh().kept()).isTrue();
        }
        byte[] kept = Files.readAllBytes(file);
        FallbackPoolSync.Source corrupting = () -> {
            byte[] data = published.fetch();
            data[3] ^= 0x01; // one bit of the first address flipped: the checksum no longer matches
            return data;
        };

        try (FallbackPoolSync sync = FallbackPoolSync.create(corrupting, file)) {
            FallbackPoolSync.Outcome outcome = sync.refresh();

            assertThat(outcome.kept()).isFalse();
            assertThat(outcome.problem()).startsWith("fetched pool refused: checksum mismatch (stored: ")
                                         .endsWith("; keeping " + file + " (2 addresses)").doesNotContain("\n");
            assertThat(sync.refused()).isEqualTo(1);
            assertThat(Files.readAllBytes(file)).as("the old copy, untouched").isEqualTo(kept);
            assertThat(sync.pool().encodeText()).isEqualTo("10.0.0.1\n10.0.0.2\n");
        }
    }

    @Test
    void a_corrupted_file_found_at_start_is_refused_and_replaced_by_the_next_fetch() throws Exception {
        byte[] data = FallbackPool.decodeText("10.0.0.9\n").encodeBinary();
        data[data.length - 1] ^= 0x10;
        Files.write(file, data);

        try (FallbackPoolSync sync = FallbackPoolSync.create(FallbackPoolSync.Source.controlPlane(client), file)) {
            assertThat(sync.pool().addresses()).isEmpty();
            assertThat(sync.problem()).contains("checksum mismatch").doesNotContain("\n");

            assertThat(sync.refresh().kept()).isTrue();
            assertThat(FallbackPool.decodeBinary(Files.readAllBytes(file)).encodeText())
                    .isEqualTo("10.0.0.1\n10.0.0.2\n");
        }
    }

    @Test
    void a_link_planted_at_a_predictable_temporary_name_is_not_followed() throws Exception {
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Files.createSymbolicLink(dir.resolve("fallback-pool.bin.new"), victim);

        try (FallbackPoolSync sync = FallbackPoolSync.create(POOL, file)) {
            assertThat(sync.refresh().kept()).isTrue();
        }
        assertThat(Files.readString(victim)).isEqualTo("precious");
        assertThat(Files.isSymbolicLink(file)).isFalse();
        assertThat(FallbackPool.decodeBinary(Files.readAllBytes(file)).encodeText()).isEqualTo("10.0.0.9\n");
        try (var left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp")))
                    .as("temporary files left behind").isEmpty();
        }
    }

    @Test
    void a_pool_file_that_is_a_link_is_refused_with_one_line_and_its_target_left_alone() throws Exception {
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Files.createSymbolicLink(file, victim);

        try (FallbackPoolSync sync = FallbackPoolSync.create(POOL, file)) {
            assertThat(sync.problem()).isEqualTo(file + ": is a symbolic link (expected: a regular file, or none)");
            FallbackPoolSync.Outcome outcome = sync.refresh();

            assertThat(outcome.kept()).isFalse();
            assertThat(outcome.problem()).contains(file + ": is a symbolic link").doesNotContain("\n");
        }
        assertThat(Files.readString(victim)).isEqualTo("precious");
        assertThat(Files.isSymbolicLink(file)).isTrue();
    }

    @Test
    void the_refresh_loop_survives_a_fetch_that_throws_an_error() throws Exception {
        AtomicInteger fetches = new AtomicInteger();
        FallbackPoolSync.Source once = () -> {
            if (fetches.getAndIncrement() == 0) {
                throw new StackOverflowError("a deep fetch");
            }
            return POOL.fetch();
        };
        try (FallbackPoolSync sync = FallbackPoolSync.create(once, file)) {
            sync.start(Duration.ofMillis(20));
            Await.until("a run after the one that threw", Duration.ofSeconds(10),
                        () -> !sync.pool().addresses().isEmpty());
            assertThat(sync.pool().encodeText()).as("kept by a run after the one that threw").isEqualTo("10.0.0.9\n");
        }
    }

    /** A source of one address, without a control plane. */
    private static final FallbackPoolSync.Source POOL = () -> FallbackPool.decodeText("10.0.0.9\n").encodeBinary();
}
