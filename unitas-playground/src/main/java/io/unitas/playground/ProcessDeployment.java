package io.unitas.playground;

import io.unitas.core.Region;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The playground as separate processes, as a team would run it: the control plane; one Kafka broker (KRaft) the
 * regions replicate through; per region its own PostgreSQL server, gateway ({@code unitas gateway}), health agent
 * ({@code unitas health serve}), DNS server ({@code unitas dns}) and two instances of the wallet service
 * ({@code examples/wallet}, Spring Boot on the starter), and with {@link Builder#example} two of each service of the
 * example pair behind a gateway of their own, each a JVM of its own. Every process reads
 * its own configuration file, written under {@link #deployDir()} (one folder per region), and writes its own log
 * beside it. Closing it stops every process it started.
 *
 * <p>{@link Builder#naive naive}: the same wallet processes as the seed's team ran them instead, each region's
 * PostgreSQL and wallet instances only (no control plane, gateway, health agent or broker), every region believing
 * it is every user's home.
 */
public interface ProcessDeployment extends AutoCloseable {

    /** A builder; {@link Builder#classPath} is required. */
    static Builder builder() {
        return new Builder();
    }

    /** The regions, in fallback order; the first is the center. */
    List<Region> regions();

    /** The control plane's API and console. */
    URI control();

    /** What a wallet instance answers 200 on while its process runs (what a GeoDNS health check would ask). */
    String LIVENESS = "/actuator/health/liveness";

    /** Whether it runs the naive setup ({@link Builder#naive}). */
    boolean naive();

    /** A region's gateway, the entry for its users; {@link IllegalStateException} in the naive setup. */
    URI gateway(Region region);

    /**
     * Where {@code region}'s users enter: its gateway, or in the naive setup its wallet instances themselves (what a
     * GeoDNS answer for the region names).
     */
    default List<URI> entries(Region region) {
        return naive() ? wallets(region) : List.of(gateway(region));
    }

    /**
     * The entry name clients resolve: the SRV service naming each region's gateway (its own at priority 10, the
     * fallback order's after it), answered by every region's DNS server.
     */
    String ENTRY_SERVICE = EntryDns.SERVICE;

    /**
     * {@code region}'s DNS server ({@code unitas dns}, UDP and TCP), answering {@link #ENTRY_SERVICE} as the control
     * plane's routing state has it; {@link IllegalStateException} in the naive setup, which runs none.
     */
    InetSocketAddress dns(Region region);

    /**
     * The network {@code region}'s clients are in, as the DNS servers' geo map places them: on one host every query
     * comes from loopback, so a client sends it as its EDNS Client Subnet.
     */
    String clientNetwork(Region region);

    /**
     * The fallback pool file {@code region}'s wallet instances keep (fetched from the control plane, CRC32-checked,
     * replaced atomically): where a resolver in the region turns when DNS fails.
     */
    Path fallbackPool(Region region);

    /** {@code kill -9} of every region's DNS server; {@link IllegalStateException} in the naive setup. */
    void killDns();

    /** Starts every region's DNS server again on its port and state file; returns once each takes connections. */
    void startDns();

    /**
     * The Kafka broker's address ({@code host:port}) the wallets replicate through; empty with
     * {@link Replication#NONE}.
     */
    Optional<String> kafka();

    /**
     * Pauses replication for real, or resumes it: {@code SIGSTOP} to the Kafka broker's process (it hangs, its
     * sockets open: every region's shipper and consumer wait on it), {@code SIGCONT} to let it go on. The outboxes
     * keep what the regions write meanwhile; nothing is lost.
     *
     * @throws IllegalStateException without replication
     */
    void pauseReplication(boolean paused);

    /**
     * {@code region}'s wallet instances, each reached directly (past the gateway, as a misrouted call or a peer
     * would reach it).
     */
    List<URI> wallets(Region region);

    /**
     * Where {@code region}'s users reach the example service pair ({@link Builder#example}): the region's gateway of the
     * example, which routes {@code /orders} by the user's key to the home region's order instances as the region's
     * gateway routes the wallets; {@link IllegalStateException} when the pair does not run.
     */
    URI exampleGateway(Region region);

    /** The JDBC URL of {@code region}'s wallet database (user {@code postgres}), to inspect what it holds. */
    String databaseUrl(Region region);

    /** Where the configuration files and logs are: {@code topology.yaml}, {@code rules.yaml}, one folder per region. */
    Path deployDir();

    /**
     * The {@code seq}-th user id whose home is {@code home} (the wallet's path {@code /wallets/{userId}} carries it).
     */
    String userId(Region home, long seq);

    /**
     * {@code kill -9} of every process of the region: its gateway, health agent, wallet instances and its PostgreSQL
     * server (the postmaster and its backends). The Kafka broker, shared by the regions, keeps running.
     */
    void killRegion(Region region);

    /**
     * Turns {@code region}'s PostgreSQL server read-only, or back, as in the seed's incident: its
     * {@code default_transaction_read_only}, reloaded, so the sessions already open refuse writes too; every process
     * keeps running.
     */
    void databaseReadOnly(Region region, boolean readOnly);

    /**
     * Cuts the network between regions {@code a} and {@code b}, or heals it: every link between them, both ways
     * ({@link #slow}'s list), stops forwarding; new connections are accepted and hang, established ones carry
     * nothing, as a real partition hangs rather than refuses. The Kafka broker runs in the center (the first region):
     * cutting the center from a region cuts that region's link to the broker too. Returns how many links it changed
     * (none in the naive setup, which has no traffic between regions).
     */
    int partition(Region a, Region b, boolean cut);

    /**
     * Adds {@code latency} to every chunk, each way, on every link of {@code region} (zero: none again): each gateway's
     * connections to the other regions' gateways, each wallet's home reads and claims at the other regions' instances,
     * and its link to the Kafka broker (every region's, when it is the center, where the broker runs); the other way
     * too. Its users' own entry is not a link between regions. Returns how many links it changed (none in the naive
     * setup).
     */
    int slow(Region region, Duration latency);

    /** Starts a killed region's processes again on the same ports and data; returns once they answer. */
    void startRegion(Region region);

    /**
     * {@code kill -9} of the control plane's process; the gateways, health agents and wallets keep the last state they
     * had. {@link IllegalStateException} in the naive setup, which has none.
     */
    void killControlPlane();

    /** Starts the control plane again on its port and data; returns once it answers. */
    void startControlPlane();

    /**
     * Waits until every gateway sends every region's users to a wallet instance (an answer that is not the
     * gateway's own problem); {@link IllegalStateException} after {@code timeout}.
     */
    void awaitReady(Duration timeout);

    /** The process ids of everything it runs now: each process and what it started (PostgreSQL's backends). */
    Set<Long> pids();

    /** The resident memory of {@link #pids()} together, in bytes (each one's {@code VmRSS} in {@code /proc}). */
    long residentBytes();

    /** How long the start took, up to every process answering. */
    Duration startTime();

    /** A multi-line description: every process with its port, config file and log; curl lines to try. */
    String describe();

    /** Stops every process it started ({@code SIGTERM}, then {@code SIGKILL}) and every PostgreSQL server. */
    @Override
    void close();

    /** How the regions' wallets replicate their changes to each other. */
    enum Replication {
        /** Over the deployment's Kafka broker ({@code unitas.replication.transport: kafka}). */
        KAFKA,
        /** Not at all: a region knows another's users only by reading their home. */
        NONE;

        /** {@code kafka} or {@code none}; {@link IllegalArgumentException} naming the two otherwise. */
        public static Replication of(String name) {
            for (Replication r : values()) {
                if (r.name().toLowerCase(Locale.ROOT).equals(name)) {
                    return r;
                }
            }
            throw new IllegalArgumentException("replication: '" + name + "' (expected: kafka or none)");
        }
    }

    /** Collects the settings of a {@link ProcessDeployment}. */
    final class Builder {
        List<Region> regions = List.of(Region.of("cn"), Region.of("eu"), Region.of("us"));
        int portsFrom = 7000;
        String classPath;
        Path deployDir = Path.of("deploy");
        String java = ProcessHandle.current().info().command().orElse("java");
        Consumer<String> progress = line -> { };
        int instances = 2;
        Replication replication = Replication.KAFKA;
        boolean naive;
        boolean example;

        private Builder() {}

        /** The regions (default cn, eu, us), in fallback order; the first is the center. */
        public Builder regions(List<Region> regions) {
            this.regions = new ArrayList<>(regions);
            return this;
        }

        /** The first port (default 7000): the control plane's; region {@code i} takes ten from {@code 10 (i + 1)} above. */
        public Builder portsFrom(int portsFrom) {
            this.portsFrom = portsFrom;
            return this;
        }

        /**
         * The class path every JVM runs from: it must hold {@code io.unitas.cli.Main} (the {@code unitas} command) and
         * the wallet service, as the packaged {@code unitas-playground.jar} does.
         */
        public Builder classPath(String classPath) {
            this.classPath = Objects.requireNonNull(classPath, "classPath");
            return this;
        }

        /** Where the configuration files and logs go (default {@code deploy}); written over on every start. */
        public Builder deployDir(Path dir) {
            this.deployDir = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** The {@code java} binary the processes run on (default: this JVM's). */
        public Builder java(String java) {
            this.java = Objects.requireNonNull(java, "java");
            return this;
        }

        /** Wallet instances per region (default 2): 1 for a smaller deployment, as a short test runs it. */
        public Builder instances(int instances) {
            if (instances < 1 || instances > 2) {
                throw new IllegalArgumentException("instances: " + instances + " (expected: 1 or 2)");
            }
            this.instances = instances;
            return this;
        }

        /** How the wallets replicate (default {@link Replication#KAFKA}: a broker of its own, as a process). */
        public Builder replication(Replication replication) {
            this.replication = Objects.requireNonNull(replication, "replication");
            return this;
        }

        /**
         * The seed's setup on the same wallet processes (default false): per region only its PostgreSQL and wallet
         * instances, no control plane, gateway, health agent or broker. Every region believes it is every user's home:
         * its wallets read a rules file of its own that homes every unit there (so idempotency records stay in the
         * region and reads are local only, a miss "not found"), and take any user's write ({@code
         * unitas.write-guard.mode=allow}). Needs {@link Replication#NONE}.
         */
        public Builder naive(boolean naive) {
            this.naive = naive;
            return this;
        }

        /**
         * Whether every region also runs the example service pair (default false): as many order and inventory
         * instances as wallet instances ({@link #instances}), each a JVM of its own, and a gateway of the example in
         * front of the order instances. Not with {@link #naive}, which has no gateway or control plane.
         */
        public Builder example(boolean example) {
            this.example = example;
            return this;
        }

        /** Where progress lines go (each process started, waited for). */
        public Builder progress(Consumer<String> progress) {
            this.progress = Objects.requireNonNull(progress, "progress");
            return this;
        }

        /** Checks the regions and ports without starting anything; throws {@link IllegalArgumentException}. */
        public Builder validate() {
            new Layout(regions, portsFrom);
            if (!naive && regions.size() > Layout.MAX_DNS_REGIONS) {
                throw new IllegalArgumentException("regions: " + regions.size() + " (expected: at most "
                        + Layout.MAX_DNS_REGIONS + " on processes, each region's DNS server on one of the control"
                        + " plane's ports)");
            }
            if (naive && replication != Replication.NONE) {
                throw new IllegalArgumentException("replication: " + replication.name().toLowerCase(Locale.ROOT)
                                                   + " (expected: none with the naive setup, which never replicated)");
            }
            if (naive && example) {
                throw new IllegalArgumentException("example: on (expected: off with the naive setup, which has no"
                                                   + " gateway or control plane for it)");
            }
            return this;
        }

        /** Starts every process; returns once every one answers ({@link ProcessDeployment#awaitReady}). */
        public ProcessDeployment start() {
            if (classPath == null) {
                throw new IllegalArgumentException("class path: missing (expected: the packaged unitas-playground.jar)");
            }
            validate();
            return DefaultProcessDeployment.start(this, new Layout(regions, portsFrom));
        }
    }
}
