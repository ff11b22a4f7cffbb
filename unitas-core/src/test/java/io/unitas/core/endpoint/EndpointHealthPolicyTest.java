package io.unitas.core.endpoint;

import static io.unitas.core.endpoint.EndpointState.DEGRADED;
import static io.unitas.core.endpoint.EndpointState.EVICTED;
import static io.unitas.core.endpoint.EndpointState.HEALTHY;
import static io.unitas.core.endpoint.EndpointState.UNHEALTHY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** Seed 003 (3.3): degraded on the first failure, unhealthy after 3, evicted after 60 s, re-admitted by a success. */
class EndpointHealthPolicyTest {

    private static final long S = 1_000_000_000L;
    private final EndpointHealthPolicy policy = EndpointHealthPolicy.DEFAULT;

    @Test
    void firstFailure_degrades_thirdMakesUnhealthy() {
        EndpointHealth h = EndpointHealth.initial(0);
        h = policy.onFailure(h, 3 * S);
        assertThat(h.state()).isEqualTo(DEGRADED);
        h = policy.onFailure(h, 6 * S);
        assertThat(h.state()).isEqualTo(DEGRADED);
        assertThat(h.sinceNanos()).isEqualTo(3 * S);
        h = policy.onFailure(h, 9 * S);
        assertThat(h.state()).isEqualTo(UNHEALTHY);
        assertThat(h.sinceNanos()).isEqualTo(9 * S);
    }

    @Test
    void unhealthyFor60s_isEvicted_notBefore() {
        EndpointHealth h = new EndpointHealth(UNHEALTHY, 3, 10 * S);
        assertThat(policy.onTime(h, 69 * S).state()).isEqualTo(UNHEALTHY);
        assertThat(policy.onFailure(h, 69 * S).state()).isEqualTo(UNHEALTHY);
        assertThat(policy.onTime(h, 70 * S).state()).isEqualTo(EVICTED);
        assertThat(policy.onFailure(h, 70 * S).state()).isEqualTo(EVICTED);
    }

    @Test
    void success_readmitsFromEveryState() {
        for (EndpointState s : EndpointState.values()) {
            EndpointHealth h = policy.onSuccess(new EndpointHealth(s, 5, 0), 100 * S);
            assertThat(h).isEqualTo(new EndpointHealth(HEALTHY, 0, s == HEALTHY ? 100 * S : 100 * S));
        }
    }

    @Test
    void healthyEndpoint_staysTheSameValueOnSuccess() {
        EndpointHealth h = EndpointHealth.initial(0);
        assertThat(policy.onSuccess(h, 5 * S)).isSameAs(h);
    }

    @Test
    void thresholds_areConfigurable_andChecked() {
        EndpointHealthPolicy strict = new EndpointHealthPolicy(1, Duration.ofSeconds(5));
        EndpointHealth h = strict.onFailure(EndpointHealth.initial(0), 0);
        assertThat(h.state()).isEqualTo(UNHEALTHY);
        assertThat(strict.onTime(h, 5 * S).state()).isEqualTo(EVICTED);
        assertThatThrownBy(() -> new EndpointHealthPolicy(0, Duration.ZERO))
                .hasMessage("failuresToUnhealthy: 0 (expected: >= 1)");
        assertThatThrownBy(() -> new EndpointHealthPolicy(3, Duration.ofSeconds(-1)))
                .hasMessage("evictAfter: PT-1S (expected: >= 0s)");
    }

    @Provide
    Arbitrary<List<Integer>> events() {
        // 0 = success, 1 = failure, 2 = time passes; each event 3 s after the previous (the probe interval)
        return Arbitraries.integers().between(0, 2).list().ofMaxSize(60);
    }

    /** The machine agrees with a plain model of the seed's rules over any sequence of probes. */
    @Property(tries = 500)
    void stateMachine_followsTheModel(@ForAll("events") List<Integer> events) {
        EndpointHealth h = EndpointHealth.initial(0);
        int failures = 0;
        long unhealthySince = -1;
        boolean evicted = false;
        long now = 0;
        for (int e : events) {
            now += 3 * S;
            if (e == 0) {
                h = policy.onSuccess(h, now);
                failures = 0;
                unhealthySince = -1;
                evicted = false;
            } else if (e == 1) {
                h = policy.onFailure(h, now);
                failures++;
                if (failures == 3) {
                    unhealthySince = now;
                }
            } else {
                h = policy.onTime(h, now);
            }
            if (unhealthySince >= 0 && now - unhealthySince >= 60 * S) {
                evicted = true;
            }
            EndpointState expected = evicted ? EVICTED : failures >= 3 ? UNHEALTHY : failures > 0 ? DEGRADED : HEALTHY;
            assertThat(h.state()).as("after %s", events).isEqualTo(expected);
            assertThat(h.consecutiveFailures()).isEqualTo(failures);
        }
    }
}
