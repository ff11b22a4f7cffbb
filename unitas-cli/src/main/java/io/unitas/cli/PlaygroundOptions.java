package io.unitas.cli;

import io.unitas.core.Region;
import io.unitas.playground.Playground;
import java.util.List;
import picocli.CommandLine.Option;

/** The options {@code up}, {@code drill} and {@code demo} share: which regions, and from which port. */
final class PlaygroundOptions {

    @Option(names = "--regions", split = ",", defaultValue = "cn,eu,us",
            description = "The regions, in fallback order; the first is the center (default: ${DEFAULT-VALUE}).")
    List<String> regions;

    @Option(names = "--ports-from", defaultValue = "7000",
            description = "The control plane's port; region i uses the ten ports from ports-from + 10 (i + 1) "
                          + "(default: ${DEFAULT-VALUE}).")
    int portsFrom;

    /** A playground builder with these options applied; {@link IllegalArgumentException} for a bad region id. */
    Playground.Builder builder() {
        try {
            return Playground.builder().regions(regions.stream().map(Region::of).toList()).portsFrom(portsFrom);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--regions: " + e.getMessage(), e);
        }
    }
}
