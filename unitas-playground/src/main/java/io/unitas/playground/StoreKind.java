package io.unitas.playground;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Which database each region of the playground keeps its store in. */
public enum StoreKind {

    /** An in-memory H2 database per region, in the playground's process: the default, nothing to install. */
    EMBEDDED("embedded"),

    /**
     * A real PostgreSQL server per region, started from the installed PostgreSQL on the region's own port: faults
     * are the server's (read-only by {@code default_transaction_read_only}, a region down stops its server).
     */
    POSTGRES("postgres");

    private final String id;

    StoreKind(String id) {
        this.id = id;
    }

    /** The name on the command line: {@code embedded} or {@code postgres}. */
    public String id() {
        return id;
    }

    /** The kind named {@code id}, or an {@link IllegalArgumentException} listing the names. */
    public static StoreKind of(String id) {
        return Arrays.stream(values()).filter(k -> k.id.equals(id)).findFirst().orElseThrow(
                () -> new IllegalArgumentException("store: '" + id + "' (expected: one of " + Arrays.stream(values())
                        .map(StoreKind::id).collect(Collectors.joining(", ")) + ")"));
    }
}
