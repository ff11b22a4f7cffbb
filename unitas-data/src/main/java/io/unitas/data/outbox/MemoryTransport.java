package io.unitas.data.outbox;

import io.unitas.core.Region;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link InProcessTransport}: per link, per unit, a queue whose head is offered to the target's applier until it is
 * consumed; the heads of all the link's units go in one call of up to {@link #APPLY_BATCH} changes (one applying
 * transaction). A unit whose head is refused (stopped, or the target
 * unavailable) holds; the unit beside it does not. Each link is locked on its own, so links deliver in parallel. A
 * publish that finds a link full delivers it first, so only a link that does not move (paused, its target unavailable
 * or its streams stopped) reaches its capacity. A flush delivers the links in parallel.
 */
final class MemoryTransport implements InProcessTransport {

    /** How many changes (of all units of a link) one applying call, so one transaction, takes. */
    static final int APPLY_BATCH = 500;

    private static final Logger LOG = LoggerFactory.getLogger(MemoryTransport.class);

    private final int capacity;
    private final Map<Region, ChangeApplier> receivers = new ConcurrentHashMap<>();
    private final List<Region> order = new CopyOnWriteArrayList<>();
    private final Map<Link, LinkQueue> links = new ConcurrentHashMap<>();
    /** The regions that have published: a receiver that joins later is owed what they published before it. */
    private final Set<Region> origins = ConcurrentHashMap.newKeySet();
    /** Delivers the links {@link #flush()} does not deliver on its caller's thread; idle threads end. */
    private final ExecutorService delivery = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "unitas-in-process-delivery");
        t.setDaemon(true);
        return t;
    });

    MemoryTransport(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: >= 1)");
        }
        this.capacity = capacity;
    }

    @Override
    public void receiver(ChangeApplier applier) {
        Objects.requireNonNull(applier, "applier");
        Region joined = applier.region();
        if (receivers.put(joined, applier) == null) {
            order.add(joined);
            // what went out before this region had a receiver was queued for nobody: each sender publishes again to
            // it from its acknowledged positions at its next round, as after a link over its capacity
            for (Region origin : origins) {
                if (!origin.equals(joined)) {
                    link(new Link(origin, joined)).requestReplay();
                }
            }
        }
    }

    private LinkQueue link(Link link) {
        return links.computeIfAbsent(link, LinkQueue::new);
    }

    @Override
    public void publish(List<ChangeEnvelope> changes) {
        Map<Region, List<ChangeEnvelope>> byOrigin = new LinkedHashMap<>();
        for (ChangeEnvelope change : changes) {
            byOrigin.computeIfAbsent(change.origin(), o -> new ArrayList<>()).add(change);
        }
        byOrigin.forEach((origin, fromOrigin) -> {
            origins.add(origin);
            for (Region target : order) {
                if (!target.equals(origin)) {
                    link(new Link(origin, target)).offer(fromOrigin, receivers.get(target));
                }
            }
        });
    }

    /**
     * Delivers every link at once, one on this thread and the others on the delivery threads (a link's target commits,
     * and waits for its disk, while the next link's does). A link that another thread is delivering now is left to it:
     * its delivery started after this caller's publish had queued its changes (both hold the link's lock), so it
     * hands them on, and this caller does not wait for another origin's links.
     */
    @Override
    public void flush() {
        List<Runnable> deliveries = new ArrayList<>();
        for (Region origin : order) {
            for (Region target : order) {
                if (!target.equals(origin)) {
                    LinkQueue link = link(new Link(origin, target));
                    if (!link.deliveredElsewhere()) {
                        deliveries.add(() -> link.deliver(receivers.get(target)));
                    }
                }
            }
        }
        List<CompletableFuture<Void>> others = new ArrayList<>();
        for (int i = 1; i < deliveries.size(); i++) {
            others.add(CompletableFuture.runAsync(deliveries.get(i), delivery));
        }
        RuntimeException failed = null;
        try {
            if (!deliveries.isEmpty()) {
                deliveries.get(0).run();
            }
        } catch (RuntimeException e) {
            failed = e;
        }
        for (CompletableFuture<Void> other : others) {
            try {
                other.join();
            } catch (CompletionException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : e;
                if (failed == null) {
                    failed = cause;
                } else {
                    failed.addSuppressed(cause);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    @Override
    public Map<String, Long> acknowledged(Region origin, Region target) {
        ChangeApplier applier = receivers.get(target);
        if (applier == null) {
            throw new IllegalStateException("no receiver in " + target + " (expected one of " + order + ")");
        }
        return applier.positions(origin);
    }

    @Override
    public List<StoppedStream> stopped(Region origin) {
        List<StoppedStream> stopped = new ArrayList<>();
        for (Region region : order) {
            receivers.get(region).stopped().stream().filter(s -> s.origin().equals(origin)).forEach(stopped::add);
        }
        return List.copyOf(stopped);
    }

    @Override
    public Set<Region> replayRequests(Region origin) {
        Set<Region> replay = new LinkedHashSet<>();
        for (Region target : order) {
            if (!target.equals(origin) && link(new Link(origin, target)).takeReplay()) {
                replay.add(target);
            }
        }
        return replay;
    }

    @Override
    public void pause(Region origin, Region target) {
        link(new Link(origin, target)).paused(true);
    }

    @Override
    public void resume(Region origin, Region target) {
        link(new Link(origin, target)).paused(false);
    }

    @Override
    public int queued(Region origin, Region target) {
        return link(new Link(origin, target)).status().queued();
    }

    @Override
    public LinkStatus link(Region origin, Region target) {
        return link(new Link(origin, target)).status();
    }

    @Override
    public void close() {
        links.values().forEach(LinkQueue::clear);
        delivery.shutdown();
    }

    @Override
    public String toString() {
        return "InProcessTransport{receivers " + order + ", capacity " + capacity + '}';
    }

    private record Link(Region origin, Region target) {
        @Override
        public String toString() {
            return origin + "->" + target;
        }
    }

    /** One link's queues and state; every method holds its lock. */
    private final class LinkQueue {

        private final Link link;
        private final Map<String, ArrayDeque<ChangeEnvelope>> units = new LinkedHashMap<>();
        private int queued;
        private boolean paused;
        private boolean overCap;
        private boolean replay;
        private long refused;
        /** The thread in {@link #deliver} now, if any. */
        private volatile Thread deliverer;

        LinkQueue(Link link) {
            this.link = link;
        }

        synchronized void offer(List<ChangeEnvelope> changes, ChangeApplier applier) {
            for (ChangeEnvelope change : changes) {
                if (!overCap && queued >= capacity) {
                    deliver(applier); // a link that flows makes room; only a held one (paused, unavailable) fills
                }
                if (!overCap && queued >= capacity) {
                    overCap = true;
                    refused = 0;
                    LOG.warn("replication link {} over its capacity of {} queued changes: it takes no more until it"
                             + " has delivered them; the rest wait in {}'s outbox and are published again then",
                             link, capacity, link.origin());
                }
                if (overCap) {
                    refused++;
                    continue;
                }
                units.computeIfAbsent(change.unit(), u -> new ArrayDeque<>()).addLast(change);
                queued++;
            }
        }

        boolean deliveredElsewhere() {
            Thread now = deliverer;
            return now != null && now != Thread.currentThread();
        }

        synchronized void deliver(ChangeApplier applier) {
            if (paused || applier == null) {
                return;
            }
            deliverer = Thread.currentThread();
            try {
                deliverQueued(applier);
            } finally {
                deliverer = null;
            }
        }

        private void deliverQueued(ChangeApplier applier) {
            Set<String> held = new java.util.HashSet<>();
            while (true) {
                // up to APPLY_BATCH changes, a few of every unit that flows, in one call (one transaction)
                List<ChangeEnvelope> batch = new ArrayList<>();
                int perUnit = Math.max(1, APPLY_BATCH / Math.max(1, units.size()));
                units.forEach((unit, queue) -> {
                    if (!held.contains(unit)) {
                        int taken = 0;
                        for (ChangeEnvelope change : queue) {
                            if (taken++ == perUnit) {
                                break;
                            }
                            batch.add(change);
                        }
                    }
                });
                if (batch.isEmpty()) {
                    break;
                }
                Map<String, Integer> consumed = new LinkedHashMap<>();
                Map<String, Integer> offered = new LinkedHashMap<>();
                batch.forEach(c -> offered.merge(c.unit(), 1, Integer::sum));
                for (ApplyResult result : applier.applyAll(batch)) {
                    if (result.consumed()) {
                        consumed.merge(result.change().unit(), 1, Integer::sum);
                    }
                }
                offered.forEach((unit, count) -> {
                    int done = consumed.getOrDefault(unit, 0);
                    ArrayDeque<ChangeEnvelope> queue = units.get(unit);
                    for (int i = 0; i < done; i++) {
                        queue.removeFirst();
                    }
                    queued -= done;
                    if (done < count) {
                        held.add(unit); // this unit holds; the others flow
                    }
                });
            }
            units.values().removeIf(ArrayDeque::isEmpty);
            if (overCap && queued == 0 && !replay) {
                replay = true;
                LOG.info("replication link {} delivered its queue after {} changes over its capacity: asking {} to"
                         + " publish them again", link, refused, link.origin());
            }
        }

        synchronized void requestReplay() {
            replay = true;
        }

        synchronized boolean takeReplay() {
            if (!replay) {
                return false;
            }
            replay = false;
            overCap = false;
            return true;
        }

        synchronized void paused(boolean paused) {
            this.paused = paused;
        }

        synchronized LinkStatus status() {
            return new LinkStatus(link.origin(), link.target(), queued, capacity, paused, overCap, refused);
        }

        synchronized void clear() {
            units.clear();
            queued = 0;
        }
    }
}
