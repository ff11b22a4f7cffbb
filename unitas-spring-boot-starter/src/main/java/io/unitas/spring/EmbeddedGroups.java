package io.unitas.spring;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.ChangeTransport;
import io.unitas.data.outbox.InProcessTransport;
import io.unitas.data.outbox.StoppedStream;

/**
 * The embedded transport's groups: regions of one JVM (application contexts side by side, in tests and demos) that
 * share one {@link InProcessTransport} by the name {@code unitas.replication.embedded.group}. It never crosses a
 * process; separate processes replicate over Kafka.
 */
final class EmbeddedGroups {

    private static final Map<String, Group> GROUPS = new ConcurrentHashMap<>();

    private EmbeddedGroups() {}

    /**
     * Joins {@code applier}'s region to group {@code name} of {@code regions} (a region started again replaces its
     * applier) and returns the transport its shipper publishes on.
     */
    static ChangeTransport join(String name, List<Region> regions, ChangeApplier applier) {
        Group group = GROUPS.computeIfAbsent(name, n -> new Group(n, InProcessTransport.create()));
        group.transport.receiver(applier);
        group.joined.add(applier.region());
        return new Member(group, List.copyOf(regions));
    }

    private record Group(String name, InProcessTransport transport, Set<Region> joined) {
        Group(String name, InProcessTransport transport) {
            this(name, transport, ConcurrentHashMap.newKeySet());
        }
    }

    /**
     * One region's view of its group. A change published before a target region joined would never reach it (the
     * in-process transport queues only for receivers it knows), so a round fails, before reading the outbox, until
     * every region has joined: the changes wait in the outbox and the health component says which region is missing.
     */
    private record Member(Group group, List<Region> regions) implements ChangeTransport {

        @Override
        public Set<Region> replayRequests(Region origin) {
            List<Region> missing = regions.stream().filter(r -> !group.joined.contains(r)).toList();
            if (!missing.isEmpty()) {
                throw new IllegalStateException("embedded transport, group '" + group.name + "': no region " + missing
                                                + " in this JVM yet (expected: every region of unitas.replication"
                                                + ".regions started with the same group)");
            }
            return group.transport.replayRequests(origin);
        }

        @Override
        public void publish(List<ChangeEnvelope> changes) {
            group.transport.publish(changes);
        }

        @Override
        public void flush() {
            group.transport.flush();
        }

        @Override
        public Map<String, Long> acknowledged(Region origin, Region target) {
            return group.transport.acknowledged(origin, target);
        }

        @Override
        public List<StoppedStream> stopped(Region origin) {
            return group.transport.stopped(origin);
        }

        @Override
        public void close() {
            // the group outlives one region's context: the others still deliver through it
        }
    }
}
