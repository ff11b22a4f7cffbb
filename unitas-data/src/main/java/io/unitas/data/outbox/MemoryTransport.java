package io.unitas.data.outbox;

import io.unitas.core.Region;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link InProcessTransport}: per link, per unit, a queue whose head is offered to the target's applier until it is
 * consumed. A unit whose head is refused (stopped, or the target unavailable) holds; the unit beside it does not.
 * All methods are serialized.
 */
final class MemoryTransport implements InProcessTransport {

    private final Map<Region, ChangeApplier> receivers = new LinkedHashMap<>();
    private final Map<Link, Map<String, ArrayDeque<ChangeEnvelope>>> queues = new LinkedHashMap<>();
    private final Map<Link, Boolean> paused = new LinkedHashMap<>();

    @Override
    public synchronized void receiver(ChangeApplier applier) {
        receivers.put(applier.region(), Objects.requireNonNull(applier, "applier"));
    }

    @Override
    public synchronized void publish(List<ChangeEnvelope> changes) {
        for (ChangeEnvelope change : changes) {
            for (Region target : receivers.keySet()) {
                if (!target.equals(change.origin())) {
                    queues.computeIfAbsent(new Link(change.origin(), target), l -> new LinkedHashMap<>())
                            .computeIfAbsent(change.unit(), u -> new ArrayDeque<>())
                            .addLast(change);
                }
            }
        }
    }

    @Override
    public synchronized void flush() {
        queues.forEach((link, units) -> {
            if (paused.getOrDefault(link, false)) {
                return;
            }
            ChangeApplier applier = receivers.get(link.target());
            for (ArrayDeque<ChangeEnvelope> queue : units.values()) {
                while (!queue.isEmpty() && applier.apply(queue.peekFirst()).consumed()) {
                    queue.removeFirst();
                }
            }
        });
    }

    @Override
    public synchronized Map<String, Long> acknowledged(Region origin, Region target) {
        ChangeApplier applier = receivers.get(target);
        if (applier == null) {
            throw new IllegalStateException("no receiver in " + target + " (expected one of " + receivers.keySet()
                                            + ")");
        }
        return applier.positions(origin);
    }

    @Override
    public synchronized List<StoppedStream> stopped(Region origin) {
        List<StoppedStream> stopped = new ArrayList<>();
        for (ChangeApplier applier : receivers.values()) {
            applier.stopped().stream().filter(s -> s.origin().equals(origin)).forEach(stopped::add);
        }
        return List.copyOf(stopped);
    }

    @Override
    public synchronized void pause(Region origin, Region target) {
        paused.put(new Link(origin, target), true);
    }

    @Override
    public synchronized void resume(Region origin, Region target) {
        paused.remove(new Link(origin, target));
    }

    @Override
    public synchronized int queued(Region origin, Region target) {
        return queues.getOrDefault(new Link(origin, target), Map.of()).values().stream()
                .mapToInt(ArrayDeque::size).sum();
    }

    @Override
    public synchronized void close() {
        queues.clear();
    }

    @Override
    public synchronized String toString() {
        return "InProcessTransport{receivers " + receivers.keySet() + ", paused " + paused.keySet() + '}';
    }

    private record Link(Region origin, Region target) {
        @Override
        public String toString() {
            return origin + "->" + target;
        }
    }
}
