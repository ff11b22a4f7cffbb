package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;

/**
 * The standing kill loop: a control plane on the embedded store, in its own JVM, is killed with {@code kill -9}
 * again and again while a writer streams changes (health reports with rising sequence numbers) at it; after each
 * restart every acknowledged change must be there. {@code verify} runs {@value #SHORT} kills; the long run is
 * {@code mvn -pl unitas-control -am verify -Dtest=KillLoopTest -Dunitas.killLoop.kills=100
 * -Dsurefire.failIfNoSpecifiedTests=false}. Each run writes its figures to {@code target/kill-loop.txt}.
 */
class KillLoopTest {

    private static final Logger log = LoggerFactory.getLogger(KillLoopTest.class);
    private static final int SHORT = 10;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void killDashNineUnderAStreamOfChanges_losesNoAcknowledgedChange() throws Exception {
        int kills = Integer.getInteger("unitas.killLoop.kills", SHORT);
        Random random = new Random(14); // the kill points vary, reproducibly
        Path data = dir.resolve("data");
        Path tokens = Fixtures.tokensFile(dir);
        long acknowledged = 0;
        long lost = 0;
        AtomicLong ackedSequence = new AtomicLong();
        for (int kill = 0; kill <= kills; kill++) {
            try (ControlProcess process = ControlProcess.start(data, tokens, null, dir.resolve("control.log"))) {
                RawClient admin = RawClient.of(process.uri(), Fixtures.ADMIN.secret());
                if (kill == 0) {
                    Fixtures.seed(admin, Instant.now(), 0);
                    ackedSequence.set(1);
                } else {
                    long recovered = admin.get("/api/v1/state").json().path("health").path("cn").path("sequence")
                                          .asLong();
                    if (recovered < ackedSequence.get()) { // counted, and the loop goes on so the figure is whole
                        log.error("after kill {}: acknowledged reports {}..{} lost", kill, recovered + 1,
                                  ackedSequence.get());
                        lost += ackedSequence.get() - recovered;
                    }
                    ackedSequence.set(recovered);
                }
                if (kill == kills) {
                    break;
                }
                long before = ackedSequence.get();
                int target = 5 + random.nextInt(40);
                AtomicBoolean running = new AtomicBoolean(true);
                Thread writer = new Thread(() -> {
                    for (long seq = before + 1; running.get(); seq++) {
                        try {
                            ControlResponse res = admin.send("PUT", "/api/v1/health/cn",
                                    Fixtures.report("cn", seq, Instant.now(), true, seq % 100), Map.of());
                            if (res.status() != 200) {
                                return;
                            }
                            ackedSequence.set(seq);
                        } catch (RuntimeException e) {
                            return; // the process is gone: this change was not acknowledged
                        }
                    }
                }, "kill-loop-writer");
                writer.start();
                Fixtures.await(target + " acknowledged changes", WAIT, () -> ackedSequence.get() - before >= target);
                process.kill(); // while the writer is writing
                running.set(false);
                writer.join();
                acknowledged += ackedSequence.get() - before;
            }
        }
        String figures = "kills survived: " + kills + ", changes acknowledged: " + acknowledged
                         + ", acknowledged changes lost: " + lost + "\n";
        log.info("kill loop: {}", figures.strip());
        writeFigures(figures);
        assertThat(lost).isZero();
    }

    private static void writeFigures(String figures) throws IOException {
        Path target = Path.of("target");
        if (Files.isDirectory(target)) {
            Files.writeString(target.resolve("kill-loop.txt"), figures);
        }
    }
}
