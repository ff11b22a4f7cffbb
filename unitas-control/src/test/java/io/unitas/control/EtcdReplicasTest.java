package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.testkit.EtcdServer;

/** Control-plane replicas sharing one real etcd: one state, one leader, and a switchover that survives it. */
class EtcdReplicasTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private final EtcdServer etcd = EtcdServer.shared();

    @TempDir
    Path dir;

    private ControlServer replica(String name, String prefix) {
        return ControlServer.builder().port(0).dataDir(dir.resolve(name)).tokens(Fixtures.tokensFile(dir))
                            .etcd(List.of(etcd.endpoint())).etcdPrefix(prefix).leaderLease(Duration.ofSeconds(2))
                            .tick(Duration.ofMillis(50)).start();
    }

    @Test
    void twoReplicas_shareOneVersionedState_andExactlyOneLeads() {
        try (ControlServer a = replica("a", "/t1/"); ControlServer b = replica("b", "/t1/")) {
            RawClient onA = RawClient.of(a.uri(), Fixtures.ADMIN.secret());
            RawClient onB = RawClient.of(b.uri(), Fixtures.ADMIN.secret());

            Fixtures.seed(onA, Instant.now(), 0);
            Fixtures.awaitEquals("b's revision", WAIT, b::revision, a.revision());
            assertThat(onB.get("/api/v1/state").json().path("rules").path("units")).hasSize(4);

            long read = a.revision();
            assertThat(onB.post("/api/v1/fences", "{\"units\":[\"u-ny\"]}").status()).isEqualTo(200);
            ControlResponse stale = onA.put("/api/v1/rules", Fixtures.RULES, read);
            assertThat(stale.status()).isEqualTo(412);

            Fixtures.await("one leader", WAIT, () -> a.leader() ^ b.leader());
            assertThat(a.leader() && b.leader()).isFalse();
            assertThat(onA.get("/api/v1/audit").json().path("entries").findValuesAsText("action"))
                    .contains("topology.replace", "rules.replace", "fence.add");
        }
    }

    @Test
    void theFollowerTakesOverASwitchover_whenTheLeaderIsKilled() {
        Path tokens = Fixtures.tokensFile(dir);
        String endpoint = etcd.endpoint() + "";
        ControlProcess one = ControlProcess.start(dir.resolve("one"), tokens, endpoint, dir.resolve("one.log"));
        ControlProcess two = ControlProcess.start(dir.resolve("two"), tokens, endpoint, dir.resolve("two.log"));
        try {
            Fixtures.await("a leader", WAIT, () -> leader(one) || leader(two));
            ControlProcess leader = leader(one) ? one : two;
            ControlProcess follower = leader == one ? two : one;
            RawClient onLeader = RawClient.of(leader.uri(), Fixtures.ADMIN.secret());
            RawClient onFollower = RawClient.of(follower.uri(), Fixtures.ADMIN.secret());
            assertThat(leader(follower)).isFalse();

            Fixtures.seed(onLeader, Instant.now(), 5_000);
            // The follower learns the seed through etcd's watch; a switchover it plans before then sees no health.
            long seeded = onLeader.get("/api/v1/state").revision();
            Fixtures.await("the follower sees the seed", WAIT, () -> onFollower.get("/api/v1/state").revision() >= seeded);
            Fixtures.startMovingUshToEu(onFollower, Duration.ofMinutes(2));

            leader.kill();
            onFollower.send("PUT", "/api/v1/health/cn", Fixtures.reportWithUnitLag("cn", 2, Instant.now(), "eu", 50,
                    Instant.now(), "u-sh"), Map.of());

            Fixtures.await("the follower leads", WAIT, () -> leader(follower));
            Fixtures.awaitEquals("phase", WAIT, () -> Fixtures.phase(onFollower), "completed");
            Fixtures.assertUshHomeAndNoFences(onFollower, "eu");
        } finally {
            one.kill();
            two.kill();
        }
    }

    private static boolean leader(ControlProcess p) {
        return RawClient.of(p.uri(), Fixtures.VIEWER.secret()).get("/api/v1/replica").json().path("leader")
                            .asBoolean();
    }

}
