package io.unitas.cli;

import java.nio.file.Path;

import io.unitas.config.HealthFile;
import io.unitas.config.TopologyFile;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Topology;
import picocli.CommandLine.Option;

/** The {@code --topology} and {@code --health} options of every command that routes, and their reading. */
final class TopologyAndHealth {

    @Option(names = "--topology", required = true, paramLabel = "FILE", description = "topology, YAML or JSON")
    Path topologyFile;

    @Option(names = "--health", required = true, paramLabel = "FILE", description = "health snapshot, JSON")
    Path healthFile;

    /** Reads the topology. @throws io.unitas.config.ConfigException naming file, line and path */
    Topology topology() {
        return TopologyFile.read(topologyFile);
    }

    /** Reads the health snapshot of {@code topology}. @throws io.unitas.config.ConfigException */
    HealthSnapshot health(Topology topology) {
        return HealthFile.read(healthFile, topology);
    }
}
