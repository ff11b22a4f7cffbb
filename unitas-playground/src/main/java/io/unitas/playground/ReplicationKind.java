package io.unitas.playground;

import java.util.Arrays;
import java.util.stream.Collectors;

/** How the playground's regions replicate their stores to each other. */
public enum ReplicationKind {

    /** In this process: each link reads its origin's log and applies it in its target. The default. */
    EMBEDDED("embedded"),

    /**
     * Through a real Apache Kafka broker (KRaft, started from the Kafka artifacts on the class path on free ports):
     * each region publishes its log to its own topic and receives the others' with {@code KafkaTransport}.
     */
    KAFKA("kafka");

    private final String id;

    ReplicationKind(String id) {
        this.id = id;
    }

    /** The name on the command line: {@code embedded} or {@code kafka}. */
    public String id() {
        return id;
    }

    /** The kind named {@code id}, or an {@link IllegalArgumentException} listing the names. */
    public static ReplicationKind of(String id) {
        return Arrays.stream(values()).filter(k -> k.id.equals(id)).findFirst().orElseThrow(
                () -> new IllegalArgumentException("replication: '" + id + "' (expected: one of " + Arrays
                        .stream(values()).map(ReplicationKind::id).collect(Collectors.joining(", ")) + ")"));
    }
}
