package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import io.unitas.client.RoutingHeaders;
import io.unitas.client.RoutingSnapshot;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitRules;
import org.junit.jupiter.api.Test;

/**
 * A write whose routing key names no unit ({@code alice} under {@code mod 100}) is refused with the gateway's 400
 * {@code unroutable-key} before the handler runs: it has no home to be guarded, claimed or replicated from (it used to
 * reach the handler, whose outbox append then failed with a 500). A read is served; a request without a key passes.
 */
class UnroutableWriteTest {

    private final Topology topology = Topology.builder().region("eu", null).region("us", null).build();
    private final UnitRules rules = UnitRules.builder().source(KeySource.path("/users/{userId}"))
                                             .transform(KeyTransform.mod(100))
                                             .unit("u-eu", "eu", null).range(0, 49, "u-eu")
                                             .unit("u-us", "us", null).range(50, 99, "u-us")
                                             .build(topology);
    private final RoutingSnapshot snapshot = RoutingSnapshot.of(rules, HealthSnapshot.empty(), WriteFences.none(),
                                                                Duration.ZERO, () -> 0L);
    private final InboundContext inbound = new InboundContext(RoutingHeaders.DEFAULTS, () -> snapshot, true, "eu",
                                                              Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

    @Test
    void aWriteWithAKeyThatNamesNoUnit_isRefusedWith400() {
        InboundContext.Accepted post = inbound.accept(path("/users/alice/notes"), snapshot, "POST",
                                                      "/users/alice/notes");
        assertThat(post.refusal()).as("POST /users/alice/notes").isNotNull();
        assertThat(post.refusal().status()).isEqualTo(400);
        assertThat(post.refusal().type()).endsWith("unroutable-key");
    }

    @Test
    void aReadWithThatKey_andAWriteWithoutAKey_pass() {
        assertThat(inbound.accept(path("/users/alice/notes"), snapshot, "GET", "/users/alice/notes").refusal())
                .isNull();
        assertThat(inbound.accept(path("/admin/reindex"), snapshot, "POST", "/admin/reindex").refusal()).isNull();
        assertThat(inbound.accept(path("/users/7/notes"), snapshot, "POST", "/users/7/notes").refusal()).isNull();
    }

    private static RequestView path(String path) {
        return new RequestView() {
            @Override
            public String header(String name) {
                return null;
            }

            @Override
            public String cookie(String name) {
                return null;
            }

            @Override
            public String query(String name) {
                return null;
            }

            @Override
            public String host() {
                return null;
            }

            @Override
            public String path() {
                return path;
            }
        };
    }
}
