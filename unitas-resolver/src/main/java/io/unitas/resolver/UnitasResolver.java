package io.unitas.resolver;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.endpoint.EndpointHealthPolicy;

/**
 * What a client uses instead of {@code InetAddress}: asynchronous SRV and A/AAAA resolution against one DNS
 * server, each answer kept for its TTL (the JDK's resolver keeps it for a fixed time of its own), endpoints probed
 * and weighed by latency, and the fallback pool when DNS is slow or failing. Thread-safe; close it to stop its
 * probes and its DNS client.
 */
public interface UnitasResolver extends AutoCloseable {

    /** A builder; only the DNS server is required. */
    static Builder builder() {
        return new Builder();
    }

    /** The service's endpoints: a fresh or cached DNS answer, a stale one while DNS is asked again, or the pool. */
    CompletableFuture<Resolution> resolve(ServiceName service);

    /**
     * One endpoint for one request, chosen by RFC 2782 priority and weight times latency weight among the healthiest
     * endpoints; fails with {@link NoEndpointException} when there is none.
     */
    CompletableFuture<InetSocketAddress> pick(ServiceName service);

    /**
     * The endpoint {@code key} (a user id) sticks to: the CRC32 of the key over the healthiest endpoints, so one user
     * keeps one address while the endpoints' health does not change.
     */
    CompletableFuture<InetSocketAddress> pick(ServiceName service, CharSequence key);

    /**
     * Reports the outcome of a call to {@code address}, so calls count like probes: a failure moves the endpoint
     * towards unhealthy, a success re-admits it.
     */
    void report(InetSocketAddress address, boolean success);

    /**
     * Calls {@code listener} with the service's resolution now and whenever it changes (new answer, endpoint state
     * or weight, switch to or from the pool), on the resolver's own thread. Closing the handle stops the calls.
     */
    AutoCloseable subscribe(ServiceName service, Consumer<Resolution> listener);

    /** The pool currently loaded. */
    FallbackPool pool();

    /** Stops probing and closes the DNS client. */
    @Override
    void close();

    /** Builds a {@link UnitasResolver}. */
    final class Builder {
        InetSocketAddress dnsServer;
        InetAddress subnet;
        int subnetPrefix;
        Clock clock = Clock.systemUTC();
        FallbackTriggers triggers = FallbackTriggers.DEFAULT;
        EndpointHealthPolicy healthPolicy = EndpointHealthPolicy.DEFAULT;
        EndpointProbe probe;
        Duration probeInterval = Duration.ofSeconds(3);
        Duration rttWindow = Duration.ofSeconds(60);
        Duration queryTimeout = Duration.ofSeconds(5);
        Duration tick = Duration.ofMillis(100);
        Path poolFile;
        Duration poolCheckInterval = Duration.ofSeconds(1);
        MeterRegistry meters = new SimpleMeterRegistry();

        Builder() {}

        /** The DNS server every query goes to (required). */
        public Builder dnsServer(InetSocketAddress server) {
            this.dnsServer = Objects.requireNonNull(server, "dnsServer");
            return this;
        }

        /**
         * Sends an EDNS Client Subnet option (RFC 7871) naming {@code address}/{@code prefix} with every query, so a
         * geo-aware server answers for that network rather than for the address the query comes from: for a client
         * that resolves on behalf of users elsewhere, or that must be placed in a region on one host (default: none).
         * Bits of {@code address} beyond {@code prefix} are cleared, as the RFC requires.
         */
        public Builder clientSubnet(InetAddress address, int prefix) {
            int max = Objects.requireNonNull(address, "address").getAddress().length * 8;
            if (prefix < 0 || prefix > max) {
                throw new IllegalArgumentException("clientSubnet: /" + prefix + " (expected: a prefix from /0 to /" + max
                        + ")");
            }
            this.subnet = address;
            this.subnetPrefix = prefix;
            return this;
        }

        /** The clock every TTL, trigger, probe interval and RTT is measured on; tests pass a controlled one. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** When to switch to the fallback pool (default: seed 003's 800 ms, or 3 failures in a row). */
        public Builder fallbackTriggers(FallbackTriggers triggers) {
            this.triggers = Objects.requireNonNull(triggers, "triggers");
            return this;
        }

        /** The fallback pool's file: binary ({@code .bin}, or any name not ending in {@code .txt}) or text ({@code .txt}). */
        public Builder fallbackPool(Path file) {
            this.poolFile = Objects.requireNonNull(file, "file");
            return this;
        }

        /** How often the pool file is checked for changes (default 1 s). */
        public Builder poolCheckInterval(Duration interval) {
            this.poolCheckInterval = positive("poolCheckInterval", interval);
            return this;
        }

        /** The endpoint probe (default: none; endpoints then change state only by {@link #report}). */
        public Builder probe(EndpointProbe probe) {
            this.probe = Objects.requireNonNull(probe, "probe");
            return this;
        }

        /** How often each endpoint is probed (default: seed 003's 3 s). */
        public Builder probeInterval(Duration interval) {
            this.probeInterval = positive("probeInterval", interval);
            return this;
        }

        /** The window RTT samples are averaged over (default: seed 003's 60 s). */
        public Builder rttWindow(Duration window) {
            this.rttWindow = positive("rttWindow", window);
            return this;
        }

        /** The endpoint state machine's thresholds (default: unhealthy after 3 failures, evicted after 60 s). */
        public Builder healthPolicy(EndpointHealthPolicy policy) {
            this.healthPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** How long one DNS query may take before it counts as failed (default 5 s; the pool takes over sooner). */
        public Builder queryTimeout(Duration timeout) {
            this.queryTimeout = positive("queryTimeout", timeout);
            return this;
        }

        /** How often, in real time, the resolver looks at its clock for due probes, triggers and reloads (default 100 ms). */
        public Builder tick(Duration tick) {
            this.tick = positive("tick", tick);
            return this;
        }

        /** Where the resolver's metrics go (default: a registry of its own). */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meters = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Starts the resolver. */
        public UnitasResolver build() {
            if (dnsServer == null) {
                throw new IllegalStateException("dnsServer: not set (expected: the DNS server's address)");
            }
            return new DefaultResolver(this);
        }

        private static Duration positive(String what, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + ": " + d + " (expected: > 0s)");
            }
            return d;
        }
    }
}
