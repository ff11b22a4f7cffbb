package io.unitas.control;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.unitas.config.internal.DurationFormat;
import io.unitas.core.consistency.ConsistencyContract;
import io.unitas.core.switchover.SwitchoverCooldown;

/**
 * A running control plane: the versioned state in its store (embedded in a data directory, or etcd shared by
 * replicas), the HTTP API and watch stream, the console, and, on the leader, the loop that marks stale health and
 * drives switchovers. Started by {@link Builder#start()}, stopped by {@link #close()}.
 */
public interface ControlServer extends AutoCloseable {

    /** A builder with the defaults of {@code unitas control}. */
    static Builder builder() {
        return new Builder();
    }

    /** The port the API listens on (useful when built with port 0). */
    int port();

    /**
     * Where a client on this host reaches it: {@code http://<listen address>:<port>}, or {@code https://} with TLS
     * ({@code 127.0.0.1} for a wildcard listen address).
     */
    URI uri();

    /** The address the API is bound to, as the socket has it ({@code 0.0.0.0:7070}, {@code [::1]:7070}). */
    InetSocketAddress boundAddress();

    /** Whether this replica currently runs switchovers. */
    boolean leader();

    /** The revision of the newest state this replica knows. */
    long revision();

    /** The admin token created on first start when no tokens file existed; empty otherwise. */
    Optional<ControlToken> generatedToken();

    /**
     * The file holding the secret of {@link #generatedToken()} (readable by its owner only), for the operator to
     * read once and remove; empty when no token was created.
     */
    Optional<Path> generatedTokenFile();

    /** Stops serving and releases the store (and, on etcd, the leadership). */
    @Override
    void close();

    /** Configures and starts a {@link ControlServer}. */
    final class Builder {
        int port = 7070;
        String host = "127.0.0.1";
        Path tlsCert;
        Path tlsKey;
        boolean allowPlaintext;
        Path dataDir = Path.of("unitas-control-data");
        List<URI> etcdEndpoints = List.of();
        String etcdPrefix = "/unitas/";
        EtcdStore.Access etcdAccess = EtcdStore.Access.PLAINTEXT;
        Path tokens;
        Clock clock = Clock.systemUTC();
        // Three of the health agent's 10 s heartbeats, so one lost push does not make a region stale.
        Duration healthTtl = Duration.ofSeconds(30);
        Duration healthGrace = Duration.ofSeconds(30);
        /** Null: the TTL. */
        Duration healthTtlWithEvidence;
        SwitchoverCooldown cooldown = SwitchoverCooldown.DEFAULT;
        Duration healthClockSkew = Duration.ofSeconds(30);
        Duration tick = ControlService.DEFAULT_TICK;
        Duration leaderLease = Duration.ofSeconds(5);
        int maxConnections = 16_384; // above the 10,000 watches allowed in all, with room for API calls
        Duration headerTimeout = Duration.ofSeconds(10);
        Duration idleTimeout = Duration.ofSeconds(60);
        WatchHub.Limits watchLimits = WatchHub.Limits.DEFAULTS;
        ConsistencyContract residency = new ConsistencyContract(List.of(), List.of(), List.of());
        /** The published fallback pool's binary form, null for none. */
        byte[] fallbackPool;

        private Builder() {}

        /**
         * The address to listen on. Default 127.0.0.1; any other than a loopback address needs {@link #tls} (or
         * {@link #allowPlaintext}), as bearer tokens must not cross a network in cleartext.
         */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** Serve HTTPS only, with this certificate chain and private key (PEM files). */
        public Builder tls(Path certificateChain, Path privateKey) {
            this.tlsCert = Objects.requireNonNull(certificateChain, "certificateChain");
            this.tlsKey = Objects.requireNonNull(privateKey, "privateKey");
            return this;
        }

        /**
         * Allow cleartext HTTP on an address other than a loopback one: only behind a proxy or mesh that terminates
         * TLS in front of the control plane. Default false.
         */
        public Builder allowPlaintext(boolean allow) {
            this.allowPlaintext = allow;
            return this;
        }

        /** The port to listen on; 0 picks a free one. Default 7070. */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
            }
            this.port = port;
            return this;
        }

        /** The directory of the embedded store and of the default tokens file. */
        public Builder dataDir(Path dir) {
            this.dataDir = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** Store the state in etcd at these endpoints instead of the data directory; replicas elect a leader. */
        public Builder etcd(List<URI> endpoints) {
            this.etcdEndpoints = List.copyOf(endpoints);
            return this;
        }

        /** The key prefix in etcd, so that several control planes can share one cluster. Default {@code /unitas/}. */
        public Builder etcdPrefix(String prefix) {
            this.etcdPrefix = prefix.endsWith("/") ? prefix : prefix + "/";
            return this;
        }

        /**
         * Speak TLS to etcd ({@code https://} endpoints): trust {@code ca}; present {@code cert} with its PKCS#8
         * {@code key} when etcd asks for a client certificate (both null: none). PEM files.
         */
        public Builder etcdTls(Path ca, Path cert, Path key) {
            this.etcdAccess = new EtcdStore.Access(Objects.requireNonNull(ca, "ca"), cert, key, etcdAccess.user(),
                                                   etcdAccess.password());
            return this;
        }

        /** Authenticate to etcd (with auth enabled) as {@code user}. */
        public Builder etcdAuth(String user, String password) {
            this.etcdAccess = new EtcdStore.Access(etcdAccess.ca(), etcdAccess.cert(), etcdAccess.key(),
                                                   Objects.requireNonNull(user, "user"),
                                                   Objects.requireNonNull(password, "password"));
            return this;
        }

        /** The tokens file ({@code name role sha256:<hex>} lines). Default: {@code tokens} in the data directory. */
        public Builder tokens(Path file) {
            this.tokens = file;
            return this;
        }

        /** The clock for health freshness, switchover deadlines and timestamps. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * After {@code ttl} without a report a region is stale; after {@code grace} more it is unhealthy.
         * Default 30 s and 30 s.
         */
        public Builder healthFreshness(Duration ttl, Duration grace) {
            if (ttl.isNegative() || ttl.isZero() || grace.isNegative()) {
                throw new IllegalArgumentException("health freshness: ttl " + ttl + ", grace " + grace
                                                   + " (expected: ttl > 0, grace >= 0)");
            }
            this.healthTtl = ttl;
            this.healthGrace = grace;
            return this;
        }

        /**
         * How old a region's last report may be and still count as fresh when another region has reported it
         * unreachable since (peer evidence): three of its agent's push intervals (two pushes missed), so that a
         * region that stopped pushing and that others cannot reach is taken down without waiting out the whole TTL.
         * At most the TTL, which is the default (evidence then only saves the grace).
         */
        public Builder healthTtlWithEvidence(Duration ttl) {
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("health ttl with evidence: " + DurationFormat.format(ttl)
                                                   + " (expected: > 0)");
            }
            this.healthTtlWithEvidence = ttl;
            return this;
        }

        /** The least time between two switchovers of one unit ({@link SwitchoverCooldown}). Default 1 min. */
        public Builder switchoverCooldown(Duration cooldown) {
            this.cooldown = new SwitchoverCooldown(cooldown);
            return this;
        }

        /**
         * How far ahead of this control plane's clock a health report's {@code observed_at} may be; a report
         * further ahead is refused, so that one forged report cannot outrank every honest one after it.
         * Default 30 s.
         */
        public Builder healthClockSkew(Duration skew) {
            if (skew.isNegative()) {
                throw new IllegalArgumentException("health clock skew: " + skew + " (expected: >= 0)");
            }
            this.healthClockSkew = skew;
            return this;
        }

        /**
         * The consistency contract (docs/consistency.md): a switchover or promotion that would move a unit out of its
         * residency group is refused, naming the rule, and its staleness budgets are shown against the measured lag
         * ({@code GET /api/v1/budgets}, the console). Default: none.
         */
        public Builder residency(ConsistencyContract contract) {
            this.residency = Objects.requireNonNull(contract, "contract");
            return this;
        }

        /** How often the leader checks freshness and advances a switchover. Default 100 ms. */
        public Builder tick(Duration tick) {
            this.tick = tick;
            return this;
        }

        /** How long a dead leader keeps its leadership in etcd before a follower takes over. Default 5 s. */
        public Builder leaderLease(Duration lease) {
            if (lease.toSeconds() < 1) {
                throw new IllegalArgumentException("leader lease: " + lease + " (expected: >= 1 s)");
            }
            this.leaderLease = lease;
            return this;
        }

        /**
         * The most connections served at once; more are closed as they arrive. Each watcher holds one, so keep it
         * above the total of {@link #watchLimits}. Default 16,384.
         */
        public Builder maxConnections(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("max connections: " + max + " (expected: >= 1)");
            }
            this.maxConnections = max;
            return this;
        }

        /**
         * How long a client has to send a request's headers, from connecting (or from the end of its previous
         * response, plus the idle timeout): a connection that trickles headers slower is closed. Default 10 s.
         */
        public Builder headerTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("header timeout: " + timeout + " (expected: > 0)");
            }
            this.headerTimeout = timeout;
            return this;
        }

        /** How long a connection without a request in flight stays open. Default 60 s. */
        public Builder idleTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("idle timeout: " + timeout + " (expected: > 0)");
            }
            this.idleTimeout = timeout;
            return this;
        }

        /**
         * The watch's limits: open watches per token (default 64) and in all (default 10,000; beyond them 429 and
         * 503), the bytes a watcher may leave unread before it is dropped to reconnect (default 8 MiB), and the
         * shortest time between two events caused by health alone (default 250 ms; zero sends each at once).
         */
        public Builder watchLimits(int perToken, int total, long unsentBytes, Duration healthEvery) {
            this.watchLimits = new WatchHub.Limits(perToken, total, unsentBytes, healthEvery);
            return this;
        }

        /**
         * Publishes {@code addresses} (IPv4, at most 65535) as the fallback pool clients use when DNS fails, at
         * {@code GET /api/v1/fallback-pool} in its CRC32-checked binary form (seed 003); none unless given.
         */
        public Builder fallbackPool(List<java.net.InetAddress> addresses) {
            List<byte[]> ips = new ArrayList<>();
            for (java.net.InetAddress a : addresses) {
                if (!(a instanceof java.net.Inet4Address)) {
                    throw new IllegalArgumentException("fallback pool: " + a.getHostAddress() + " (expected: an IPv4"
                                                       + " address)");
                }
                ips.add(a.getAddress());
            }
            this.fallbackPool = io.unitas.core.endpoint.PoolFormat.encode(ips);
            return this;
        }

        /** Opens the store, starts serving, and returns the running server. */
        public ControlServer start() {
            List<String> problems = new ArrayList<>();
            if (tick.isNegative() || tick.isZero()) {
                problems.add("tick: " + tick + " (expected: > 0)");
            }
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException(String.join("; ", problems));
            }
            return DefaultControlServer.start(this);
        }
    }
}
