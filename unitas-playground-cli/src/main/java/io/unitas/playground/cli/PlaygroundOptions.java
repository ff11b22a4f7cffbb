package io.unitas.playground.cli;

import io.unitas.core.Region;
import io.unitas.playground.Playground;
import io.unitas.playground.ReplicationKind;
import io.unitas.playground.StoreKind;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options {@code up}, {@code drill} and {@code demo} share: which regions, from which port, which store, which
 * replication.
 */
final class PlaygroundOptions {

    @Option(names = "--regions", split = ",", defaultValue = "cn,eu,us",
            description = "The regions, in fallback order; the first is the center (default: ${DEFAULT-VALUE}).")
    List<String> regions;

    @Option(names = "--ports-from", defaultValue = "7000",
            description = "The control plane's port; region i uses the ten ports from ports-from + 10 (i + 1) "
                          + "(default: ${DEFAULT-VALUE}).")
    int portsFrom;

    @Option(names = "--store", defaultValue = "embedded", paramLabel = "embedded|postgres",
            description = "Where each region keeps its store: embedded (in-memory H2, the default) or postgres (one "
                          + "PostgreSQL server per region on the region's seventh port; needs the PostgreSQL server "
                          + "installed: initdb and pg_ctl on the PATH or under /usr/lib/postgresql/*/bin).")
    String store;

    @Option(names = "--replication", paramLabel = "embedded|kafka|none",
            description = "How the regions replicate: embedded (in this process, the default) or kafka (through a real "
                          + "Kafka broker in KRaft mode, started from the Kafka artifacts inside unitas-playground.jar "
                          + "on free ports; each region publishes to its own topic). With --processes: kafka (the "
                          + "default; the broker a process of its own, config and log under DIR/kafka) or none.")
    String replication;

    /**
     * A playground builder with these options applied; {@link IllegalArgumentException} for a bad region id or
     * store.
     */
    Playground.Builder builder() {
        StoreKind kind;
        try {
            kind = StoreKind.of(store);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--store: '" + store + "' (expected: embedded or postgres)", e);
        }
        ReplicationKind replicationKind;
        try {
            replicationKind = ReplicationKind.of(replication == null ? "embedded" : replication);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--replication: '" + replication + "' (expected: embedded or kafka)", e);
        }
        try {
            return Playground.builder().regions(regions.stream().map(Region::of).toList()).portsFrom(portsFrom)
                             .store(kind).replication(replicationKind);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--regions: " + e.getMessage(), e);
        }
    }
}
