package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.playground.store.StoreMode;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * A fault a drill injects into the first region (cn by default) under load, and how it recovers. Every scenario
 * starts the fault at 30% of the drill and recovers at 70%.
 */
public enum Scenario {

    /** The seed incident: cn's replication falls behind, then its database turns read-only; processes stay up. */
    DB_READONLY("db-readonly", "cn's database turns read-only while its processes and /livez stay up; "
                               + "its outgoing replication is paused shortly before", StoreMode.READ_ONLY),

    /** cn→others replication falls behind, then cn's store stops answering. */
    REPLICATION_BACKLOG("replication-backlog", "cn's replication to the others falls behind, then cn's "
                                               + "database stops answering", StoreMode.UNAVAILABLE),

    /** cn stops answering at all: gateway, health agent, shops and store. */
    REGION_DOWN("region-down", "cn stops answering at all: gateway, health agent, shops, store") {
        @Override
        void inject(Playground p, Region r) {
            p.stopRegion(r);
        }

        @Override
        void recover(Playground p, Region r) {
            p.startRegion(r);
        }
    },

    /** The control plane dies under load; the gateways keep their last state. */
    CONTROL_PLANE_DOWN("control-plane-down", "the control plane dies under load; gateways keep their last state") {
        @Override
        void inject(Playground p, Region r) {
            p.stopControlPlane();
        }

        @Override
        void recover(Playground p, Region r) {
            p.startControlPlane();
        }

        @Override
        boolean movesTraffic() {
            return false;
        }
    },

    /**
     * The entry DNS server dies under load: unitas clients keep their cached answer, then switch to the fallback
     * pool; when it returns they resolve through it again.
     */
    DNS_DOWN("dns-down", "the entry DNS server dies under load; clients keep their answers, then use the "
                         + "fallback pool") {
        @Override
        void inject(Playground p, Region r) {
            p.stopDns();
        }

        @Override
        void recover(Playground p, Region r) {
            p.startDns();
        }

        @Override
        boolean movesTraffic() {
            return false;
        }
    },

    /**
     * The network between cn and eu cut, then healed: on processes only, through the deployment's fault proxies
     * ({@link ProcessDeployment#partition}); in process, {@code unitas drill partition} is {@link PartitionDrill}.
     */
    PARTITION("partition", "the network between cn and eu is cut (connections hang), then healed"),

    /** Every link of cn slowed by a fixed latency each way: on processes only ({@link ProcessDeployment#slow}). */
    SLOW_REGION("slow-region", "every link between cn and the other regions carries a fixed latency each way");

    private final String id;
    private final String description;
    /** The mode the faulted region's store is switched to, or null for a fault outside the store. */
    private final StoreMode storeFault;

    Scenario(String id, String description) {
        this(id, description, null);
    }

    Scenario(String id, String description, StoreMode storeFault) {
        this.id = id;
        this.description = description;
        this.storeFault = storeFault;
    }

    /** The name on the command line, e.g. {@code db-readonly}. */
    public String id() {
        return id;
    }

    /** One line: what breaks. */
    public String description() {
        return description;
    }

    /** The scenario named {@code id}, or an {@link IllegalArgumentException} listing the names. */
    public static Scenario of(String id) {
        return Arrays.stream(values()).filter(s -> s.id.equals(id)).findFirst().orElseThrow(
                () -> new IllegalArgumentException("scenario: '" + id + "' (expected: one of " + Arrays
                        .stream(values()).map(Scenario::id).collect(Collectors.joining(", ")) + ")"));
    }

    /**
     * Whether it runs only against a {@link ProcessDeployment} (its fault is on the network between processes, which
     * the playground in one process does not have).
     */
    public boolean processesOnly() {
        return this == PARTITION || this == SLOW_REGION;
    }

    /** Injects the fault; a store fault switches the faulted region's store to its mode. */
    void inject(Playground p, Region faulted) {
        if (processesOnly()) {
            throw new IllegalStateException(id + ": runs on processes only (expected: a process deployment)");
        }
        p.databaseMode(faulted, storeFault);
    }

    /** Undoes the fault; after a store fault the store takes writes again and its replication resumes. */
    void recover(Playground p, Region faulted) {
        p.databaseMode(faulted, StoreMode.READ_WRITE);
        resumeOutgoing(p, faulted);
    }

    /**
     * Whether the fault begins with the region's outgoing replication paused, a tenth of the run earlier: so for
     * store faults, which the seed's incident shows arriving on top of a replication backlog.
     */
    boolean backlogFirst() {
        return storeFault != null;
    }

    /** Whether the faulted region's users should end up served elsewhere (a failover time is measured). */
    boolean movesTraffic() {
        return true;
    }

    static void pauseOutgoing(Playground p, Region from) {
        p.regions().stream().filter(r -> !r.equals(from)).forEach(r -> p.replicator().pause(from, r));
    }

    static void resumeOutgoing(Playground p, Region from) {
        p.regions().stream().filter(r -> !r.equals(from)).forEach(r -> p.replicator().resume(from, r));
    }
}
