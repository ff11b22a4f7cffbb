package io.unitas.control;

import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

import io.unitas.control.client.WatchScheduler;
import io.unitas.control.client.WatchStatus;

/**
 * A watch relay: one watch on the control plane (or on another relay) re-served to many watchers, with the same
 * revisions as ids and the same snapshots, so a watcher resumes by revision on any relay or on the control plane
 * itself. A region runs two or three; its gateways and services watch them instead of the control plane, which then
 * serves a handful of streams instead of every watcher.
 *
 * <p>It serves {@code GET /api/v1/watch} exactly as the control plane does (parts, {@code since},
 * {@code Last-Event-ID}, heartbeats, limits), {@code GET /metrics} and {@code GET /healthz}, which answers 503 with
 * the reason while the upstream watch is not connected or has been silent past its heartbeat deadline.
 */
public interface Relay extends AutoCloseable {

    /** A builder with the defaults of {@code unitas relay}. */
    static Builder builder() {
        return new Builder();
    }

    /** The port it listens on (useful when built with port 0). */
    int port();

    /** Where a client on this host reaches it. */
    URI uri();

    /** The newest revision it has from upstream, or -1 before the first. */
    long revision();

    /** How its upstream watch is doing. */
    WatchStatus upstream();

    /** Whether the upstream watch is connected and has been heard from within its heartbeat deadline. */
    boolean healthy();

    /** Stops serving (watchers' streams end; they resume elsewhere by revision) and closes the upstream watch. */
    @Override
    void close();

    /** Configures and starts a {@link Relay}. */
    final class Builder {
        URI upstream;
        Supplier<String> upstreamToken = () -> null;
        Path upstreamCa;
        boolean allowInsecure;
        Path tokens;
        String host = "127.0.0.1";
        int port = 7071;
        WatchHub.Limits watchLimits = WatchHub.Limits.DEFAULTS;
        int maxConnections = 16_384;
        Duration heartbeat = Duration.ofSeconds(WatchApi.HEARTBEAT_SECONDS);
        int missedHeartbeats = 3;
        Duration firstBackoff = Duration.ofMillis(250);
        Duration longestBackoff = Duration.ofSeconds(30);
        WatchScheduler scheduler = WatchScheduler.system();
        Clock clock = Clock.systemUTC();
        Path tlsCert;
        Path tlsKey;
        boolean allowPlaintext;

        private Builder() {}

        /** The control plane (or relay) to watch. Required. */
        public Builder upstream(URI upstream) {
            this.upstream = Objects.requireNonNull(upstream, "upstream");
            return this;
        }

        /** The viewer token for the upstream, asked before every connection (a followed file). */
        public Builder upstreamToken(Supplier<String> token) {
            this.upstreamToken = Objects.requireNonNull(token, "upstreamToken");
            return this;
        }

        /** A PEM file of the certificate authorities to trust for an {@code https://} upstream. */
        public Builder upstreamCa(Path pemFile) {
            this.upstreamCa = pemFile;
            return this;
        }

        /** Whether {@code http://} to an upstream beyond loopback is allowed. Default false. */
        public Builder allowInsecure(boolean allow) {
            this.allowInsecure = allow;
            return this;
        }

        /** The tokens file whose viewers may watch this relay (the control plane's format). Required. */
        public Builder tokens(Path file) {
            this.tokens = Objects.requireNonNull(file, "tokens");
            return this;
        }

        /** The address to listen on. Default {@code 127.0.0.1}. */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** Serves HTTPS with this certificate chain and private key (PEM). */
        public Builder tls(Path certChain, Path privateKey) {
            this.tlsCert = Objects.requireNonNull(certChain, "certChain");
            this.tlsKey = Objects.requireNonNull(privateKey, "privateKey");
            return this;
        }

        /** Whether cleartext HTTP beyond loopback is allowed (behind a proxy that terminates TLS). Default false. */
        public Builder allowPlaintext(boolean allow) {
            this.allowPlaintext = allow;
            return this;
        }

        /** The port; 0 picks a free one. Default 7071. */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
            }
            this.port = port;
            return this;
        }

        /** As {@link ControlServer.Builder#watchLimits}: per token, in all, unsent bytes, health interval. */
        public Builder watchLimits(int perToken, int total, long unsentBytes, Duration healthEvery) {
            this.watchLimits = new WatchHub.Limits(perToken, total, unsentBytes, healthEvery);
            return this;
        }

        /** Open connections at most. Default 16,384. */
        public Builder maxConnections(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("max connections: " + max + " (expected: >= 1)");
            }
            this.maxConnections = max;
            return this;
        }

        /** The upstream's heartbeat period and how many may be missed before its stream counts as dead. */
        public Builder heartbeat(Duration every, int missed) {
            this.heartbeat = Objects.requireNonNull(every, "heartbeat");
            this.missedHeartbeats = missed;
            return this;
        }

        /** The upstream watch's reconnection delays. Default 250 ms doubling to 30 s, jittered. */
        public Builder reconnectBackoff(Duration first, Duration longest) {
            this.firstBackoff = Objects.requireNonNull(first, "first");
            this.longestBackoff = Objects.requireNonNull(longest, "longest");
            return this;
        }

        /** The upstream watch's time (deadlines, backoff). Default {@link WatchScheduler#system()}. */
        public Builder scheduler(WatchScheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /** The clock of health coalescing. Default UTC system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Starts the relay; refuses a missing upstream or tokens file with what was expected. */
        public Relay start() {
            if (upstream == null) {
                throw new IllegalArgumentException("upstream: none (expected: the control plane's or a relay's URL)");
            }
            if (tokens == null) {
                throw new IllegalArgumentException("tokens: none (expected: the file of tokens that may watch)");
            }
            return DefaultRelay.start(this);
        }
    }
}
