package io.unitas.data.remote;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;

import io.unitas.core.Region;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;

/**
 * A region's end of home reads: reads an entity from its unit's home region over HTTP/2, within a total deadline.
 * Reads are idempotent, so a second attempt is safe: one hedge is sent when the first has not answered after
 * {@link Builder#hedgeAfter}, or at once when the first fails without an answer. Whatever the network does, the
 * stage completes with a {@link HomeRead} by the deadline — never exceptionally, and never "not found" unless the
 * home said so.
 *
 * <p>Metrics: {@code unitas.data.home.reads} (by home and outcome), {@code unitas.data.home.read.duration} (by
 * home) and {@code unitas.data.home.read.second.attempts} (by home and reason: {@code hedge} or {@code retry}).
 */
public interface HomeReadClient extends AutoCloseable {

    /** A builder; {@link Builder#token} and at least one {@link Builder#endpoint} are required. */
    static Builder builder() {
        return new Builder();
    }

    /**
     * Reads {@code key} of {@code entityType} in {@code unit} from the region {@code home}. Completes, on a network
     * thread, by the deadline: run blocking work in an {@code …Async} stage with an executor of your own.
     */
    CompletionStage<HomeRead> read(Region home, String unit, String entityType, String key);

    /**
     * Reads whatever copy of {@code key} the region {@code region} holds, whether or not it owns {@code unit} now: a
     * look into a region that may hold writes its home has not received yet (made there during a failover, or
     * acknowledged by an old home before a promotion). {@code FOUND} proves the entity exists; {@code NOT_FOUND}
     * only says that region has no copy. Attempts and deadline as {@link #read}.
     */
    CompletionStage<HomeRead> readCopy(Region region, String unit, String entityType, String key);

    /**
     * The idempotency records of {@code unit} in the store of its home region {@code home}, over the network (the
     * home serving them with {@link HomeReadServer.Builder#idempotency}): for
     * {@link io.unitas.data.Idempotency.Builder#unitStores}. Each call blocks until the home answers or the deadline
     * passes; a home that cannot answer, or that does not own the unit now, is {@code UNAVAILABLE}, which
     * {@link io.unitas.data.Idempotency} answers with a retryable {@code data-not-ready}. Reads hedge and retry; a
     * complete is retried once, and so is a claim with a claim token (the home grants its own claim again); a claim
     * without one or a release is sent again only when the home never received it.
     *
     * <p>Metrics: {@code unitas.data.home.idempotency.calls} (by home, operation and outcome) and
     * {@code unitas.data.home.idempotency.duration} (by home and operation).
     */
    IdempotencyStore idempotency(Region home, String unit);

    /**
     * The record of {@code key} as the region {@code region} holds it, whether or not it owns {@code unit} now (a
     * copy read, as {@link #readCopy}): a completed record there proves the key took effect. Completes by the
     * deadline, never exceptionally; {@code UNAVAILABLE} when that region cannot answer.
     */
    CompletionStage<StoreResult<IdempotencyRecord>> idempotencyRecordCopy(Region region, String unit, String key);

    /**
     * The copy of the merged entities that the region {@code home} holds, as reconciliation reads it
     * ({@link io.unitas.data.merge.DigestReconciler.Builder#home}), over the network from its
     * {@link HomeReadServer} (serving it with {@link HomeReadServer.Builder#mergeCopy}). Each request has the
     * deadline, the attempts and the rotation among the home's instances of a {@link #read}; rows come a bounded
     * page at a time. A method blocks until its answers are in, and throws {@link IllegalStateException} naming the
     * home and why when one cannot be had (unreachable, timed out, refused, or the unit not owned there now).
     *
     * <p>Metrics: {@code unitas.data.home.merge.reads} (by home, what and outcome).
     */
    io.unitas.data.merge.MergeDigests mergeCopy(Region home);

    /**
     * Opens the connection to every home now (TCP, TLS, HTTP/2), so that the first reads after a start do not spend
     * their deadline connecting. Completes, never exceptionally, once every home answered or failed: with the homes
     * that could not be reached and why (empty: all connected). Nothing is read; a home answers it 404.
     */
    CompletionStage<Map<Region, String>> connect();

    /**
     * Opens the connections as {@link #connect} does, and asks every home what it serves: its entity types, each with
     * the codec identity it declared ({@link HomeReadServer.Builder#reader(String, String, EntityReader)}), so a
     * region can find at start that it and a home disagree on a codec. Completes, never exceptionally, once every home
     * answered or failed.
     */
    CompletionStage<Map<Region, Declarations>> declarations();

    /**
     * What a home serves: entity type to codec identity ("" for a type served without one); or, when {@code codecs}
     * is {@code null}, why it could not be asked ({@code unknown}).
     */
    record Declarations(Map<String, String> codecs, String unknown) {
        /** Whether the home answered with its declarations. */
        public boolean known() {
            return codecs != null;
        }
    }

    /** Closes the connections; reads in flight complete as {@link HomeRead.Outcome#UNREACHABLE}. */
    @Override
    void close();

    /** Collects the settings of a {@link HomeReadClient}. */
    final class Builder {
        final Map<Region, List<URI>> endpoints = new LinkedHashMap<>();
        String token;
        Path trustedCa;
        Path clientCert;
        Path clientKey;
        Duration deadline = Duration.ofMillis(250);
        String deadlineName;
        Duration hedgeAfter = Duration.ofMillis(100);
        Duration retryAfter = Duration.ofSeconds(1);
        MeterRegistry meters = Metrics.globalRegistry;

        private Builder() {}

        /**
         * Where {@code home}'s {@link HomeReadServer} listens: {@code http://host:port} (HTTP/2 in cleartext, h2c)
         * or {@code https://host:port}. Called again for the same home, another instance of it: each call goes to
         * the next instance in turn, so a second attempt (a hedge or a retry) goes to another instance than the
         * first, and one instance down leaves the home readable.
         */
        public Builder endpoint(Region home, URI uri) {
            Objects.requireNonNull(home, "home");
            String scheme = uri.getScheme();
            if (!"http".equals(scheme) && !"https".equals(scheme) || uri.getHost() == null || uri.getPort() < 0) {
                throw new IllegalArgumentException("endpoint of " + home + ": '" + uri
                                                   + "' (expected: http://host:port or https://host:port)");
            }
            List<URI> instances = endpoints.computeIfAbsent(home, h -> new ArrayList<>());
            if (!instances.isEmpty() && !instances.get(0).getScheme().equals(scheme)) {
                throw new IllegalArgumentException("endpoint of " + home + ": '" + uri + "' (expected: "
                                                   + instances.get(0).getScheme() + "://, as " + instances.get(0)
                                                   + ": the instances of a home speak one protocol)");
            }
            instances.add(uri);
            return this;
        }

        /** The bearer token the homes accept. */
        public Builder token(String secret) {
            if (secret == null || secret.isBlank()) {
                throw new IllegalArgumentException("token: empty (expected: a bearer token)");
            }
            this.token = secret;
            return this;
        }

        /** Trusts the PEM CA certificates in {@code caFile} for {@code https} endpoints (default: the JDK's). */
        public Builder trustedCa(Path caFile) {
            this.trustedCa = Objects.requireNonNull(caFile, "caFile");
            return this;
        }

        /**
         * Presents this PEM certificate chain and key to {@code https} homes that require a client certificate
         * ({@link HomeReadServer.Builder#clientCa}).
         */
        public Builder clientCertificate(Path certChain, Path key) {
            this.clientCert = Objects.requireNonNull(certChain, "certChain");
            this.clientKey = Objects.requireNonNull(key, "key");
            return this;
        }

        /** The most a read may take, both attempts and connecting included (default: 250 ms). */
        public Builder deadline(Duration deadline) {
            if (deadline.isNegative() || deadline.isZero()) {
                throw new IllegalArgumentException("deadline: " + deadline + " (expected: > 0)");
            }
            this.deadline = deadline;
            return this;
        }

        /**
         * As {@link #deadline(Duration)}, named {@code name} (the setting it comes from) in every message that reports
         * a call that ran out of it.
         */
        public Builder deadline(Duration deadline, String name) {
            deadline(deadline);
            this.deadlineName = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Sends the one second attempt when the first has not answered after {@code delay} (default: 100 ms). */
        public Builder hedgeAfter(Duration delay) {
            if (delay.isNegative() || delay.isZero()) {
                throw new IllegalArgumentException("hedge_after: " + delay + " (expected: > 0)");
            }
            this.hedgeAfter = delay;
            return this;
        }

        /** Never hedges a slow first attempt (a failed one is still retried once). */
        public Builder withoutHedging() {
            this.hedgeAfter = null;
            return this;
        }

        /** The wait suggested with {@code data-not-ready} (default: 1 s). */
        public Builder retryAfter(Duration wait) {
            if (wait.isNegative() || wait.isZero()) {
                throw new IllegalArgumentException("retry_after: " + wait + " (expected: > 0)");
            }
            this.retryAfter = wait;
            return this;
        }

        /** Where the client's meters are registered (default: Micrometer's global registry). */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meters = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Builds it; connections are opened on first use.
         *
         * @throws IllegalStateException when a required setting is missing, or Armeria
         *                               ({@code com.linecorp.armeria:armeria}) is not on the class path
         */
        public HomeReadClient build() {
            return build(Timers.system());
        }

        HomeReadClient build(Timers timers) {
            if (token == null) {
                throw new IllegalStateException("token: not set (expected: the bearer token the homes accept)");
            }
            if (endpoints.isEmpty()) {
                throw new IllegalStateException("endpoints: none (expected: endpoint(home, uri) at least once)");
            }
            if (hedgeAfter != null && hedgeAfter.compareTo(deadline) >= 0) {
                throw new IllegalStateException("hedge_after: " + hedgeAfter + " (expected: < deadline " + deadline
                                                + ", or withoutHedging())");
            }
            Libraries.require("HomeReadClient.build()", Libraries.ARMERIA);
            return new ArmeriaHomeReadClient(this, timers);
        }
    }
}
