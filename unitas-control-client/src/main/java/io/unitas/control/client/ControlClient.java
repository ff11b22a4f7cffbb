package io.unitas.control.client;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

import io.unitas.control.client.wire.AuditPage;
import io.unitas.control.client.wire.Caller;
import io.unitas.control.client.wire.Committed;
import io.unitas.control.client.wire.DocumentText;
import io.unitas.control.client.wire.Evidence;
import io.unitas.control.client.wire.FenceRequest;
import io.unitas.control.client.wire.ReplicaView;
import io.unitas.control.client.wire.StalenessBudget;
import io.unitas.control.client.wire.StateView;
import io.unitas.control.client.wire.SwitchoverRequest;
import io.unitas.control.client.wire.SwitchoverStarted;
import io.unitas.control.client.wire.SwitchoverView;
import io.unitas.core.health.HealthReport;

/**
 * A client of the control plane's HTTP API, for {@code unitas ctl}, gateways, health agents and SDKs: one method
 * per operation of the server's OpenAPI document ({@code /api/v1/openapi.json}), each sending the bearer token and
 * returning the answer as a record of {@link io.unitas.control.client.wire}; a refusal is a
 * {@link ControlException} carrying the server's problem, a server that cannot be reached an
 * {@link java.io.UncheckedIOException}. Its watch delivers new states in revision order, survives its callback's
 * failures, notices a dead connection by its missing heartbeats and reconnects by itself, resuming after the last
 * revision it delivered.
 */
public interface ControlClient {

    /** A client of the control plane at {@code server} ({@code http://127.0.0.1:7070}) using {@code token}. */
    static ControlClient of(URI server, String token) {
        return builder(server).token(token).build();
    }

    /** A builder for a client of the control plane at {@code server}. */
    static Builder builder(URI server) {
        return new Builder(server);
    }

    /** {@code GET /api/v1/state}: the whole state at its revision. */
    StateView state();

    /** {@code GET /api/v1/whoami}: the caller's token name and role. */
    Caller whoami();

    /** {@code GET /api/v1/replica}: whether this replica leads, and its revision. */
    ReplicaView replica();

    /**
     * {@code GET /api/v1/fallback-pool}: the fallback address pool's binary form as published (count, IPv4 addresses,
     * CRC32), not yet verified; empty when the control plane publishes none.
     */
    byte[] fallbackPool();

    /**
     * {@code GET /api/v1/budgets}: each staleness budget of the control plane's consistency contract against the
     * largest lag reported now; empty when it was started without one.
     */
    List<StalenessBudget> budgets();

    /** {@code PUT /api/v1/topology}: replaces revision {@code ifMatch}'s topology, saying why. */
    Committed replaceTopology(DocumentText document, long ifMatch, String reason);

    /** {@code PUT /api/v1/rules}: replaces revision {@code ifMatch}'s unit rules, saying why. */
    Committed replaceRules(DocumentText document, long ifMatch, String reason);

    /** {@code PUT /api/v1/failover}: replaces revision {@code ifMatch}'s failover policy, saying why. */
    Committed replaceFailover(DocumentText document, long ifMatch, String reason);

    /** {@code PUT /api/v1/health/{region}}: one health report of its region. */
    Committed reportHealth(HealthReport report);

    /** {@code DELETE /api/v1/health/{region}}: forgets {@code region}'s last report (admin), saying why. */
    Committed resetHealth(String region, String reason);

    /**
     * {@code POST /api/v1/health/{region}/unreachable}: {@code observer} (a gateway's region) cannot connect to any
     * endpoint of {@code region} it tried; evidence that takes a silent region down before its grace runs out.
     */
    Evidence reportUnreachable(String region, String observer);

    /** {@code POST /api/v1/fences}: fences the writes of the request's units. */
    Committed fence(FenceRequest request);

    /** {@code DELETE /api/v1/fences/{unit}}: lifts the fence of {@code unit}, saying why. */
    Committed liftFence(String unit, String reason);

    /** {@code POST /api/v1/switchovers}: plans, and unless a dry run starts, a switchover. */
    SwitchoverStarted startSwitchover(SwitchoverRequest request);

    /** {@code GET /api/v1/switchovers/{id}}: the current or last switchover. */
    SwitchoverView switchover(String id);

    /** {@code POST /api/v1/switchovers/{id}/abort}, saying why: the switchover as it ended. */
    SwitchoverView abortSwitchover(String id, String reason);

    /** {@code POST /api/v1/proposals/{id}/accept}: starts the move a failover proposal proposes, saying why. */
    SwitchoverStarted acceptProposal(String id, String reason);

    /** {@code GET /api/v1/audit}: at most {@code limit} entries after sequence number {@code after}. */
    AuditPage audit(long after, int limit);

    /** {@link #watch(long, Set, Consumer)} of every part. */
    default Watch watch(long since, Consumer<WatchEvent> onState) {
        return watch(since, EnumSet.allOf(Part.class), onState);
    }

    /**
     * {@code GET /api/v1/watch}: streams the states after revision {@code since} ({@code -1}: from the current one)
     * that changed one of {@code parts} to {@code onState}, in revision order, on one background thread. An
     * exception from {@code onState} is logged and counted and the watch goes on; a connection that is dropped, or
     * silent for three heartbeats, is replaced after a jittered backoff, resuming after the last delivered
     * revision. Closing the returned handle stops it.
     */
    Watch watch(long since, Set<Part> parts, Consumer<WatchEvent> onState);

    /** One server-sent state: its revision and the state's JSON (with the parts asked for). */
    record WatchEvent(long revision, String json) {}

    /** The parts of the state a watcher can ask for. */
    enum Part {
        /** Topology, unit rules, write fences and the switchover: what changes when people change it. */
        CONFIG,
        /** Region health: what changes on every report, delivered coalesced. */
        HEALTH;

        /** The name in {@code ?parts=}. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A running watch: how it is doing, and the way to stop it. */
    interface Watch extends AutoCloseable {

        /** The watch's state now. */
        WatchStatus status();

        /** Stops the watch; no callback starts after this returns. */
        @Override
        void close();
    }

    /** Configures a {@link ControlClient}. */
    final class Builder {
        final URI server;
        Supplier<String> token = () -> null;
        Duration connectTimeout = Duration.ofSeconds(5);
        Duration requestTimeout = Duration.ofSeconds(30);
        Duration heartbeat = Duration.ofSeconds(5);
        int missedHeartbeats = 3;
        Duration firstBackoff = Duration.ofMillis(250);
        Duration longestBackoff = Duration.ofSeconds(30);
        WatchScheduler scheduler = WatchScheduler.system();
        RandomGenerator random = RandomGenerator.getDefault();
        Path ca;
        boolean allowInsecure;

        private Builder(URI server) {
            this.server = Objects.requireNonNull(server, "server");
        }

        /** The bearer token; {@code null} or empty sends none. */
        public Builder token(String token) {
            return token(() -> token);
        }

        /** Where the bearer token comes from, asked before every request and connection (a followed file). */
        public Builder token(Supplier<String> token) {
            this.token = Objects.requireNonNull(token, "token");
            return this;
        }

        /** How long connecting may take. Default 5 s. */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive("connect timeout", timeout);
            return this;
        }

        /** How long a request may take until its response's headers arrive. Default 30 s. */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive("request timeout", timeout);
            return this;
        }

        /**
         * The server's heartbeat period and how many heartbeats may be missed before a watch's connection counts as
         * dead and is replaced. Default 5 s (what the control plane sends) and 3.
         */
        public Builder heartbeat(Duration every, int missed) {
            this.heartbeat = positive("heartbeat", every);
            if (missed < 1) {
                throw new IllegalArgumentException("missed heartbeats: " + missed + " (expected: >= 1)");
            }
            this.missedHeartbeats = missed;
            return this;
        }

        /**
         * The watch's reconnection delays: {@code first} doubling up to {@code longest}, each drawn between half and
         * all of it so that many clients do not come back at once. Default 250 ms to 30 s.
         */
        public Builder reconnectBackoff(Duration first, Duration longest) {
            this.firstBackoff = positive("first backoff", first);
            this.longestBackoff = positive("longest backoff", longest);
            if (longest.compareTo(first) < 0) {
                throw new IllegalArgumentException("longest backoff: " + longest + " (expected: >= " + first + ")");
            }
            return this;
        }

        /**
         * The watch's time: heartbeat ages, connection deadlines and reconnection waits. Default
         * {@link WatchScheduler#system()}; a test gives one it moves forward.
         */
        public Builder scheduler(WatchScheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /** The random source of backoff jitter. */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /** A PEM file of the certificate authorities to trust for {@code https://} instead of the JDK's. */
        public Builder ca(Path pemFile) {
            this.ca = pemFile;
            return this;
        }

        /**
         * Whether {@code http://} to a host other than loopback is allowed (bearer tokens in cleartext on the
         * network). Default false: such a URL is refused.
         */
        public Builder allowInsecure(boolean allow) {
            this.allowInsecure = allow;
            return this;
        }

        /** The client; refuses an insecure URL or an unreadable CA file with what was expected. */
        public ControlClient build() {
            return new HttpControlClient(this);
        }

        private static Duration positive(String what, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + ": " + d + " (expected: > 0)");
            }
            return d;
        }
    }
}
