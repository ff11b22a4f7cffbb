package io.unitas.data.remote;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;

import io.unitas.core.Region;
import io.unitas.data.IdempotencyStore;

/**
 * The home region's end of home reads: an HTTP/2 endpoint (h2c, or TLS) that reads an entity from this region's
 * store for another region, and runs idempotency operations on this region's records for the other regions' requests
 * whose owner's home unit lives here. It answers only for units this region owns now (but for a copy read, which
 * vouches for nothing), only to callers with an accepted bearer token, and only for the entity types the service
 * registered.
 */
public interface HomeReadServer extends AutoCloseable {

    /** A builder; {@link Builder#region}, {@link Builder#owns}, a token and at least one reader are required. */
    static Builder builder() {
        return new Builder();
    }

    /** The region this server reads for. */
    Region region();

    /** The port it listens on. */
    int port();

    /** Its address for {@link HomeReadClient.Builder#endpoint}: {@code http://127.0.0.1:port} or {@code https://…}. */
    URI uri();

    /** Stops at once: open connections are closed, reads in flight are cut (their callers see the home unreachable). */
    @Override
    void close();

    /** Collects the settings of a {@link HomeReadServer}. */
    final class Builder {
        Region region;
        Predicate<String> owns;
        Predicate<String> authenticator;
        final Map<String, EntityReader> readers = new LinkedHashMap<>();
        final Map<String, String> codecs = new LinkedHashMap<>();
        IdempotencyStore idempotency;
        io.unitas.data.merge.MergeDigests mergeCopy;
        java.util.Set<String> mergeTypes = java.util.Set.of();
        String host = "127.0.0.1";
        int port;
        Path tlsCert;
        Path tlsKey;
        Path clientCa;
        boolean allowPlaintext;
        Duration requestTimeout = Duration.ofSeconds(2);
        int blockingThreads = 8;
        MeterRegistry meters = Metrics.globalRegistry;
        java.util.function.LongSupplier ticker = System::nanoTime;

        private Builder() {}

        /** The region whose store this server reads. */
        public Builder region(Region region) {
            this.region = Objects.requireNonNull(region, "region");
            return this;
        }

        /**
         * Whether this region owns a unit now, asked for every request before and after the read (from the latest
         * topology and unit rules): a read for a unit it does not own is refused with 421 {@code not-home-region},
         * as its store may hold a stale copy.
         */
        public Builder owns(Predicate<String> unitOwnedHere) {
            this.owns = Objects.requireNonNull(unitOwnedHere, "owns");
            return this;
        }

        /** Accepts the bearer token {@code secret} (compared in constant time). */
        public Builder token(String secret) {
            if (secret == null || secret.isBlank()) {
                throw new IllegalArgumentException("token: empty (expected: a bearer token)");
            }
            byte[] expected = secret.getBytes(StandardCharsets.UTF_8);
            return authenticator(given -> MessageDigest.isEqual(expected, given.getBytes(StandardCharsets.UTF_8)));
        }

        /** Accepts a bearer token when {@code accepts} says so (a token table, a rotation of two tokens…). */
        public Builder authenticator(Predicate<String> accepts) {
            this.authenticator = Objects.requireNonNull(accepts, "authenticator");
            return this;
        }

        /** Lets other regions read {@code entityType} ({@code [a-z0-9._-]}, at most 64) through {@code reader}. */
        public Builder reader(String entityType, EntityReader reader) {
            return reader(entityType, "", reader);
        }

        /**
         * As {@link #reader(String, EntityReader)}, declaring the identity of the codec its payloads are encoded with
         * (for example a name and a version): peers compare it with their own at start
         * ({@link HomeReadClient#declarations}), so a mismatch is found before a read decodes the wrong bytes.
         */
        public Builder reader(String entityType, String codec, EntityReader reader) {
            if (entityType == null || !entityType.matches("[a-z0-9][a-z0-9._-]{0,63}")) {
                throw new IllegalArgumentException("entity type: '" + entityType
                        + "' (expected: lowercase letters, digits, '.', '_' or '-', at most 64)");
            }
            if (readers.putIfAbsent(entityType, Objects.requireNonNull(reader, "reader")) != null) {
                throw new IllegalArgumentException("entity type: '" + entityType + "' has a reader already");
            }
            codecs.put(entityType, Objects.requireNonNull(codec, "codec"));
            return this;
        }

        /**
         * Serves the idempotency operations of {@code store} (this region's records) to other regions: claim,
         * complete, release and reading a record, for the {@link HomeReadClient#idempotency} of a caller whose
         * owner's home unit lives here. Claims and reads of a unit this region does not own are refused (421).
         */
        public Builder idempotency(IdempotencyStore store) {
            this.idempotency = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * Serves reconciliation this region's copy of the merged entities {@code types}: the key-range digests of a
         * unit's entities of a type, and the rows of some ranges a page at a time
         * ({@link HomeReadClient#mergeCopy}), for the units this region owns (421 otherwise).
         */
        public Builder mergeCopy(io.unitas.data.merge.MergeDigests copy, java.util.Collection<String> types) {
            this.mergeCopy = Objects.requireNonNull(copy, "copy");
            this.mergeTypes = java.util.Set.copyOf(types);
            return this;
        }

        /** Where to listen (default: 127.0.0.1, any free port). */
        public Builder listen(String host, int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port: " + port + " (expected: 0 to 65535)");
            }
            this.host = Objects.requireNonNull(host, "host");
            this.port = port;
            return this;
        }

        /** Serves TLS with this PEM certificate chain and key (HTTP/2 agreed by ALPN). */
        public Builder tls(Path certChain, Path key) {
            this.tlsCert = Objects.requireNonNull(certChain, "certChain");
            this.tlsKey = Objects.requireNonNull(key, "key");
            return this;
        }

        /**
         * Requires every caller to present a client certificate issued by one of the PEM CA certificates in
         * {@code caFile} (mutual TLS; with {@link #tls}): a caller without one, or with another CA's, is refused in
         * the TLS handshake, before its token is looked at.
         */
        public Builder clientCa(Path caFile) {
            this.clientCa = Objects.requireNonNull(caFile, "caFile");
            return this;
        }

        /** Allows cleartext on an address other than loopback (behind a proxy or a mesh that adds TLS). */
        public Builder allowPlaintext() {
            this.allowPlaintext = true;
            return this;
        }

        /** How long one read may take before the home answers 503 (default: 2 s). */
        public Builder requestTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("request_timeout: " + timeout + " (expected: > 0)");
            }
            this.requestTimeout = timeout;
            return this;
        }

        /** Threads that run the readers and the idempotency store, which may block (default: 8). */
        public Builder blockingThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("blocking_threads: " + threads + " (expected: >= 1)");
            }
            this.blockingThreads = threads;
            return this;
        }

        /**
         * Where {@code unitas.data.home.read.served} (reads served by entity type and outcome) and
         * {@code unitas.data.home.idempotency.served} (idempotency operations by operation and outcome) are
         * registered (default: Micrometer's global registry).
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meters = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** The ticker that ages queued reads against their callers' time left (tests move it by hand). */
        Builder ticker(java.util.function.LongSupplier nanoTime) {
            this.ticker = Objects.requireNonNull(nanoTime, "ticker");
            return this;
        }

        /**
         * Starts serving; an address or TLS files that cannot be used are named in the error, and so are Armeria
         * ({@code com.linecorp.armeria:armeria}) and {@code io.unitas:unitas-server-bounds} when they are not on the
         * class path.
         */
        public HomeReadServer start() {
            if (region == null) {
                throw new IllegalStateException("region: not set (expected: the region this server reads for)");
            }
            if (owns == null) {
                throw new IllegalStateException("owns: not set (expected: whether " + region + " owns a unit now)");
            }
            if (authenticator == null) {
                throw new IllegalStateException("token: not set (expected: token(secret) or authenticator(…))");
            }
            if (readers.isEmpty() && idempotency == null && mergeCopy == null) {
                throw new IllegalStateException("readers: none (expected: reader(entityType, reader) at least once, "
                                                + "idempotency(store) or mergeCopy(copy, types))");
            }
            Libraries.require("HomeReadServer.start()", Libraries.ARMERIA, Libraries.SERVER_BOUNDS);
            return ArmeriaHomeReadServer.start(this);
        }
    }
}
