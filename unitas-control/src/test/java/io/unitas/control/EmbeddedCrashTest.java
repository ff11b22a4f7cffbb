package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/** The embedded store under {@code kill -9}: nothing acknowledged is lost, and switchovers resume. */
class EmbeddedCrashTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private ControlProcess start() {
        return ControlProcess.start(dir.resolve("data"), Fixtures.tokensFile(dir), null, dir.resolve("control.log"));
    }

    private static RawClient admin(ControlProcess p) {
        return RawClient.of(p.uri(), Fixtures.ADMIN.secret());
    }

    @Test
    void killDashNine_losesNoAcknowledgedChange() throws Exception {
        AtomicLong ackedRevision = new AtomicLong();
        AtomicLong ackedSequence = new AtomicLong();
        try (ControlProcess first = start()) {
            RawClient admin = admin(first);
            Fixtures.seed(admin, Instant.now(), 0);
            AtomicBoolean running = new AtomicBoolean(true);
            Thread writer = new Thread(() -> {
                for (long seq = 2; running.get(); seq++) {
                    try {
                        ControlResponse res = admin.send("PUT", "/api/v1/health/cn",
                                Fixtures.report("cn", seq, Instant.now(), true, seq), Map.of());
                        if (res.status() == 200) {
                            ackedRevision.set(res.json().path("revision").asLong());
                            ackedSequence.set(seq);
                        }
                    } catch (RuntimeException e) {
                        return; // the process is gone
                    }
                }
            });
            writer.start();
            Fixtures.await("100 acknowledged reports", WAIT, () -> ackedSequence.get() >= 100);
            first.kill(); // while the writer is still writing
            running.set(false);
            writer.join();
        }
        try (ControlProcess second = start()) {
            JsonNode state = admin(second).get("/api/v1/state").json();

            assertThat(state.path("revision").asLong()).isGreaterThanOrEqualTo(ackedRevision.get());
            assertThat(state.path("health").path("cn").path("sequence").asLong())
                    .isGreaterThanOrEqualTo(ackedSequence.get());
            assertThat(state.path("topology").path("regions")).hasSize(3);
            assertThat(admin(second).get("/api/v1/audit").status()).isEqualTo(200);
        }
    }

    @Test
    void aSwitchoverInterruptedByAKill_resumesWhenTheControlPlaneStartsAgain() {
        try (ControlProcess first = start()) {
            RawClient admin = admin(first);
            Fixtures.seed(admin, Instant.now(), 5_000);
            Fixtures.startMovingUshToEu(admin, Duration.ofMinutes(2));
            first.kill();
        }
        try (ControlProcess second = start()) {
            RawClient admin = admin(second);
            assertThat(Fixtures.phase(admin)).isEqualTo("catching_up");
            assertThat(admin.get("/api/v1/state").json().path("fences").has("u-sh")).isTrue();

            admin.send("PUT", "/api/v1/health/cn", Fixtures.reportWithUnitLag("cn", 2, Instant.now(), "eu", 50,
                    Instant.now(), "u-sh"), Map.of());

            Fixtures.awaitEquals("phase", WAIT, () -> Fixtures.phase(admin), "completed");
            Fixtures.assertUshHomeAndNoFences(admin, "eu");
        }
    }

    @Test
    void aSwitchoverWhoseDeadlinePassedWhileTheControlPlaneWasDown_rollsBackOnStart() {
        try (ControlProcess first = start()) {
            RawClient admin = admin(first);
            Fixtures.seed(admin, Instant.now(), 5_000);
            Fixtures.startMovingUshToEu(admin, Duration.ofSeconds(3));
            first.kill();
        }
        try (ControlProcess second = start()) {
            RawClient admin = admin(second);

            Fixtures.awaitEquals("phase", WAIT, () -> Fixtures.phase(admin), "rolled_back");
            Fixtures.assertUshHomeAndNoFences(admin, "cn");
        }
    }
}
