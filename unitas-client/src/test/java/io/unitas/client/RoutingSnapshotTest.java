package io.unitas.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.unitas.core.ProblemDetail;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.Verdict;
import org.junit.jupiter.api.Test;

/** Is this unit's write fenced now: the gateway's answer, from the core's write fences. */
class RoutingSnapshotTest {

    /** The core's fence verdict over the service's snapshot, as the starter asks it. */
    private static ProblemDetail fenced(RoutingSnapshot s, String unit, String method, String path) {
        Verdict.Refuse r = RoutingDecision.fence(s.state(), unit, null, null, null, method, path);
        return r == null ? null : r.problem();
    }

    private final AtomicLong nanos = new AtomicLong();

    @Test
    void aFencedUnitsWrite_getsTheGatewaysProblem_readsAndOtherUnitsPass() {
        RoutingSnapshot s = RoutingSnapshot.of(Fixtures.RULES, Fixtures.health(true, true, true),
                WriteFences.of(Map.of("u-eu", FencePolicy.reject(Duration.ofSeconds(7)))), Duration.ZERO, nanos::get);
        ProblemDetail p = fenced(s, "u-eu", "POST", "/orders");
        assertThat(p.status()).isEqualTo(503);
        assertThat(p.typeUri()).isEqualTo("urn:unitas:problem:write-fenced");
        assertThat(p.retryAfterSeconds()).isEqualTo(7);
        assertThat(fenced(s, "u-eu", "GET", "/orders")).isNull();
        assertThat(fenced(s, "u-cn", "POST", "/orders")).isNull();
        assertThat(fenced(s, null, "POST", "/orders")).isNull();
    }

    @Test
    void aThrottledUnit_letsItsBurstThrough_thenWaits_andTheNextSnapshotKeepsItsBucket() {
        WriteFences throttled = WriteFences.of(Map.of("u-cn", FencePolicy.throttle(1, 2, Duration.ofSeconds(1))));
        RoutingSnapshot s = RoutingSnapshot.of(Fixtures.RULES, Fixtures.health(true, true, true), throttled,
                                               Duration.ZERO, nanos::get);
        assertThat(fenced(s, "u-cn", "PUT", "/a")).isNull();
        assertThat(fenced(s, "u-cn", "PUT", "/a")).isNull();
        assertThat(fenced(s, "u-cn", "PUT", "/a").retryAfterSeconds()).isEqualTo(1);
        RoutingSnapshot next = s.next(Fixtures.RULES, Fixtures.health(true, false, true), throttled, nanos::get);
        assertThat(fenced(next, "u-cn", "PUT", "/a")).as("the emptied bucket carries over").isNotNull();
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(fenced(next, "u-cn", "PUT", "/a")).isNull();
    }
}
