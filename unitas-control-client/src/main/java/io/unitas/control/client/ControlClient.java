package io.unitas.control.client;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * A client of the control plane's HTTP API, for {@code unitas ctl}, gateways, health agents and SDKs: one method
 * per operation of the server's OpenAPI document ({@code /api/v1/openapi.json}), each sending the bearer token,
 * and a watch that delivers new states in revision order, survives its callback's failures, notices a dead
 * connection by its missing heartbeats and reconnects by itself, resuming after the last revision it delivered.
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

    /** {@code GET /api/v1/state}: the whole state; {@link ControlResponse#revision()} is its revision. */
    default ControlResponse state() {
        return get("/api/v1/state");
    }

    /** {@code GET /api/v1/whoami}: the caller's token name and role. */
    default ControlResponse whoami() {
        return get("/api/v1/whoami");
    }

    /** {@code GET /api/v1/replica}: whether this replica leads, and its revision. */
    default ControlResponse replica() {
        return get("/api/v1/replica");
    }

    /** {@code PUT /api/v1/topology} (JSON) replacing revision {@code ifMatch}. */
    default ControlResponse replaceTopology(String json, long ifMatch) {
        return put("/api/v1/topology", json, ifMatch);
    }

    /** {@code PUT /api/v1/rules} (JSON) replacing revision {@code ifMatch}. */
    default ControlResponse replaceRules(String json, long ifMatch) {
        return put("/api/v1/rules", json, ifMatch);
    }

    /** {@code PUT /api/v1/health/{region}}: one health report (JSON) of {@code region}. */
    default ControlResponse reportHealth(String region, String json) {
        return send("PUT", "/api/v1/health/" + Requests.segment(region), json, Map.of());
    }

    /**
     * {@code POST /api/v1/health/{region}/unreachable}: {@code observer} (a gateway's region) cannot connect to any
     * endpoint of {@code region} it tried; evidence that takes a silent region down before its grace runs out.
     */
    default ControlResponse reportUnreachable(String region, String observer) {
        return post("/api/v1/health/" + Requests.segment(region) + "/unreachable",
                    Requests.object("observer", observer));
    }

    /** {@code POST /api/v1/fences}: fences the writes of {@code units}, saying why. */
    default ControlResponse fence(List<String> units, String reason) {
        return post("/api/v1/fences", Requests.object("units", units, "reason", reason));
    }

    /** {@code DELETE /api/v1/fences/{unit}}: lifts the fence of {@code unit}, saying why. */
    default ControlResponse liftFence(String unit, String reason) {
        return send("DELETE", "/api/v1/fences/" + Requests.segment(unit), null, Requests.reason(reason));
    }

    /** {@code POST /api/v1/switchovers}: plans (or, with {@code "dry_run": true}, only plans) a switchover. */
    default ControlResponse startSwitchover(String json) {
        return post("/api/v1/switchovers", json);
    }

    /** {@code GET /api/v1/switchovers/{id}}. */
    default ControlResponse switchover(String id) {
        return get("/api/v1/switchovers/" + Requests.segment(id));
    }

    /** {@code POST /api/v1/switchovers/{id}/abort}, saying why. */
    default ControlResponse abortSwitchover(String id, String reason) {
        return post("/api/v1/switchovers/" + Requests.segment(id) + "/abort", Requests.object("reason", reason));
    }

    /** {@code GET /api/v1/audit}: at most {@code limit} entries after sequence number {@code after}. */
    default ControlResponse audit(long after, int limit) {
        return get("/api/v1/audit?after=" + after + "&limit=" + limit);
    }

    /** {@code GET path}. */
    default ControlResponse get(String path) {
        return send("GET", path, null, Map.of());
    }

    /** {@code POST path} with a JSON body. */
    default ControlResponse post(String path, String json) {
        return send("POST", path, json, Map.of());
    }

    /** {@code PUT path} of a JSON document replacing revision {@code ifMatch}. */
    default ControlResponse put(String path, String json, long ifMatch) {
        return send("PUT", path, json, Map.of("If-Match", "\"" + ifMatch + "\""));
    }

    /** Any request; {@code json} may be null; {@code headers} are added (for example {@code X-Unitas-Reason}). */
    ControlResponse send(String method, String path, String json, Map<String, String> headers);

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
        LongSupplier ticker = System::nanoTime;
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

        /** The ticker (nanoseconds) for heartbeat ages and backoff. Default {@link System#nanoTime()}. */
        public Builder ticker(LongSupplier ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
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
