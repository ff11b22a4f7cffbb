package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.data.reconcile.Reconciliations;
import io.unitas.playground.replication.Replicator;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.StoreMode;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Several regions of the demo shop in one process, on loopback ports derived from one number: the control plane
 * with its console and the entry DNS server ({@code unitas dns}); per region a gateway, a health agent whose checks ask the region's store whether it takes
 * writes, two shop instances, an embedded store and a home-read server through which the other regions' shops read
 * what has not reached them yet (HTTP/2, token-authenticated); replication between every pair of stores with an injectable
 * delay. The fault handles ({@link #databaseMode}, {@link #replicator()}, {@link #stopRegion},
 * {@link #stopControlPlane}) are what the drills use.
 */
public interface Playground extends AutoCloseable {

    /** A builder with the defaults of {@code unitas up}. */
    static Builder builder() {
        return new Builder();
    }

    /** The regions, in fallback order; the first is the center. */
    List<Region> regions();

    /** The control plane's API and console. */
    URI control();

    /** The admin token of the control plane (for the console and {@code unitas ctl}). */
    String adminToken();

    /** A region's gateway, the entry for its users. */
    URI gateway(Region region);

    /**
     * The entry DNS server, {@code unitas dns} authoritative for {@code shop.example.}: SRV
     * {@code _shop._tcp.shop.example} names the gateways, the client's region first, then its fallback order, as
     * the control plane's health has it. Clients say where they are with an EDNS Client Subnet
     * ({@link #clientNetwork}). A playground of naive shops runs none ({@link IllegalStateException}).
     */
    InetSocketAddress dns();

    /** The network a region's clients are in for the DNS server's geo map ({@code 10.1.0.0/16} for the first). */
    String clientNetwork(Region region);

    /** The fallback pool file the DNS server's clients switch to when it fails (seed 003's binary format). */
    Path fallbackPool();

    /** Stops the DNS server: its queries go unanswered (nothing for naive shops, whose clients model DNS). */
    void stopDns();

    /** Starts the DNS server again on the same port. */
    void startDns();

    /** A region's shop instances, reached directly (as the naive drill's DNS hands them out). */
    List<URI> shops(Region region);

    /** A region's health agent ({@code /livez}, {@code /readyz}, {@code /healthz}, {@code /metrics}). */
    URI health(Region region);

    /** A region's store, to inspect (faults go through {@link #databaseMode}). */
    RegionalStore store(Region region);

    /** Which database the regions' stores are kept in. */
    StoreKind storeKind();

    /** How the regions replicate: in this process, or through the Kafka broker this playground started. */
    default ReplicationKind replicationKind() {
        return ReplicationKind.EMBEDDED;
    }

    /**
     * Switches what a region's database accepts, the way a database fails. On the embedded store it is the store's
     * {@link RegionalStore#mode(StoreMode) mode}. On PostgreSQL, read-only is the server's own
     * {@code default_transaction_read_only} (set with {@code ALTER SYSTEM} and a reload, as in the seed's incident,
     * so open sessions refuse writes too), and {@link StoreMode#READ_WRITE} resets it; unavailable is the store's
     * switch (a stopped region stops its server instead).
     */
    void databaseMode(Region region, StoreMode mode);

    /** The replication between the stores: pause, resume, delay, lag. */
    Replicator replicator();

    /**
     * What reconciliation did so far: the changes a promoted unit's old home had not shipped, decided in its new home
     * when the old one returned (adopted, merged, conflicts, duplicates detected and compensated); all 0 for naive.
     */
    Reconciliations.Report reconciliation();

    /** The {@code seq}-th user id whose home is {@code home} (user ids are routing keys). */
    String userId(Region home, long seq);

    /** Which shop each instance runs. */
    ShopMode mode();

    /**
     * Stops a region's gateway, health agent, home-read server and shops and makes its store unavailable (on
     * PostgreSQL: stops its server as a crash would): the region is gone.
     */
    void stopRegion(Region region);

    /** Brings a stopped region back on the same ports, its store as it was (on PostgreSQL: its server restarted). */
    void startRegion(Region region);

    /** Stops the control plane; gateways keep serving with the last state they have. */
    void stopControlPlane();

    /** Starts the control plane again on the same port and data. */
    void startControlPlane();

    /**
     * Waits until every gateway routes every region's users to their home region (a request through each
     * gateway is answered by the home's shop); throws {@link IllegalStateException} after {@code timeout}.
     */
    void awaitReady(Duration timeout);

    /**
     * The longest a {@link Drill} of {@code scenario} may measure from the fault to the first faulted-region user
     * served elsewhere, as this playground's health settings make it: detection (checks or silence), the push,
     * the control plane's watch and a client's retry. {@link IllegalArgumentException} for a scenario that
     * moves no traffic.
     */
    Duration failoverPromise(Scenario scenario);

    /**
     * What the example service pair ({@code examples/order-inventory}, started with {@link Builder#example}) has
     * served so far, over every instance; {@link ExampleCalls#none()} when it does not run.
     */
    default ExampleCalls exampleCalls() {
        return ExampleCalls.none();
    }

    /** A multi-line description: every port, what to open, three curl lines to try. */
    String describe();

    /** Stops everything. */
    @Override
    void close();

    /** Collects the settings of a {@link Playground}. */
    final class Builder {
        List<Region> regions = List.of(Region.of("cn"), Region.of("eu"), Region.of("us"));
        int portsFrom = 7000;
        ShopMode mode = ShopMode.UNITAS;
        Duration replicationDelay = Duration.ofMillis(200);
        Path workDir;
        StoreKind store = StoreKind.EMBEDDED;
        ReplicationKind replication = ReplicationKind.EMBEDDED;
        boolean example;

        private Builder() {}

        /**
         * Whether each region also runs the example service pair (default off): an order and an inventory service,
         * Spring Boot applications with the unitas starter, reached through every gateway under {@code /example/}.
         * Unitas shops only; it adds a few seconds to the start.
         */
        public Builder example(boolean example) {
            this.example = example;
            return this;
        }

        /** The regions (default cn, eu, us), in fallback order; the first is the center. */
        public Builder regions(List<Region> regions) {
            this.regions = new ArrayList<>(regions);
            return this;
        }

        /** The first port (default 7000): the control plane's; each region takes ten above it. */
        public Builder portsFrom(int portsFrom) {
            this.portsFrom = portsFrom;
            return this;
        }

        /** Unitas shops (the default) or naive ones. */
        public Builder mode(ShopMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** Every replication link's delay (default 200 ms, the seed's normal lag). */
        public Builder replicationDelay(Duration delay) {
            if (delay.isNegative()) {
                throw new IllegalArgumentException("replication delay: " + delay + " (expected: >= 0)");
            }
            this.replicationDelay = delay;
            return this;
        }

        /**
         * Where the regions keep their stores: {@link StoreKind#EMBEDDED} (the default) or {@link StoreKind#POSTGRES},
         * one PostgreSQL server per region on the region's seventh port, which needs a PostgreSQL server installed.
         */
        public Builder store(StoreKind store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * How the regions replicate: {@link ReplicationKind#EMBEDDED} (the default) or {@link ReplicationKind#KAFKA},
         * which starts a Kafka broker in a child JVM (a few seconds more to start) and replicates through it.
         */
        public Builder replication(ReplicationKind replication) {
            this.replication = Objects.requireNonNull(replication, "replication");
            return this;
        }

        /** Where the generated configuration files and the control plane's data go (default: a temporary dir). */
        public Builder workDir(Path dir) {
            this.workDir = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** Checks the regions and ports without starting anything; throws {@link IllegalArgumentException}. */
        public Builder validate() {
            new Layout(regions, portsFrom);
            return this;
        }

        /** Starts every piece; returns once they listen (see {@link Playground#awaitReady}). */
        public Playground start() {
            return DefaultPlayground.start(this, new Layout(regions, portsFrom));
        }
    }
}
