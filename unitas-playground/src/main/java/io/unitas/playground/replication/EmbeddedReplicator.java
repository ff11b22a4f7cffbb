package io.unitas.playground.replication;

import io.unitas.core.Region;
import io.unitas.playground.store.Change;
import io.unitas.playground.store.ChangeReconciler;
import io.unitas.playground.store.RegionalStore;
import io.unitas.data.store.StoreResult;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Replicator} in this process: each round reads, per link, the origin's changes after the target's applied
 * sequence and applies the due ones in order. Rounds are serialized; link settings and statuses may be read and
 * changed from any thread.
 */
final class EmbeddedReplicator implements Replicator {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedReplicator.class);

    /** How often the stores' change logs are trimmed to what every region has applied, and expired rows dropped. */
    static final Duration TRIM_EVERY = Duration.ofSeconds(10);

    private final Clock clock;
    private final Duration pollInterval;
    private final int batchSize;
    private final ChangeReconciler reconciler;
    private final Links<Link> links = new Links<>();
    private long lastTrimMillis; // guarded by this
    private String homesProblem = ""; // guarded by this
    private ScheduledExecutorService background; // guarded by this

    EmbeddedReplicator(List<RegionalStore> stores, Clock clock, Duration delay, Map<List<Region>, Duration> delays,
                       Duration pollInterval, int batchSize, ChangeReconciler reconciler) {
        this.clock = clock;
        this.reconciler = reconciler;
        this.pollInterval = pollInterval;
        this.batchSize = batchSize;
        for (RegionalStore from : stores) {
            for (RegionalStore to : stores) {
                if (from != to) {
                    List<Region> key = List.of(from.region(), to.region());
                    links.add(new Link(from, to, delays.getOrDefault(key, delay)));
                }
            }
        }
    }

    @Override
    public synchronized void replicateDue() {
        try {
            reconciler.beforeRound();
            homesProblem = "";
        } catch (RuntimeException e) {
            // Not knowing the homes now must not stop replication: the moves are seen on a later round.
            if (!e.toString().equals(homesProblem)) {
                homesProblem = e.toString();
                log.warn("replication round: cannot read the units' homes: {}", homesProblem);
            }
        }
        for (Link link : links.all()) {
            link.replicateDue();
        }
        long now = clock.millis();
        if (now - lastTrimMillis >= TRIM_EVERY.toMillis()) {
            lastTrimMillis = now;
            trimShipped();
        }
    }

    /**
     * Each store's change log loses what every other store has applied; a store that cannot say what it applied
     * holds its origins' logs whole, since its applied sequence is last known from before.
     */
    private void trimShipped() {
        Map<RegionalStore, Long> shipped = new LinkedHashMap<>();
        for (Link link : links.all()) {
            shipped.merge(link.from, link.measured.appliedSeq(), Math::min);
        }
        shipped.forEach(RegionalStore::trim);
    }

    @Override
    public synchronized void start() {
        if (background == null) {
            background = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "unitas-replicator");
                thread.setDaemon(true);
                return thread;
            });
            long nanos = pollInterval.toNanos();
            background.scheduleWithFixedDelay(this::replicateDue, 0, nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void pause(Region from, Region to) {
        links.pause(from, to);
    }

    @Override
    public void resume(Region from, Region to) {
        links.resume(from, to);
    }

    @Override
    public void delay(Region from, Region to, Duration delay) {
        links.delay(from, to, delay);
    }

    @Override
    public LinkStatus link(Region from, Region to) {
        return links.status(from, to);
    }

    @Override
    public List<LinkStatus> links() {
        return links.statuses();
    }

    @Override
    public synchronized boolean caughtUp() {
        replicateDue();
        return links.all().stream().allMatch(link -> link.status().caughtUp());
    }

    @Override
    public void close() {
        ScheduledExecutorService running;
        synchronized (this) {
            running = background;
            background = null;
        }
        if (running != null) {
            running.shutdownNow();
        }
    }

    /** What the last round saw on a link: enough to tell its lag at any later time, and why it is stuck. */
    private record Measurement(long appliedSeq, long pending, long oldestPendingMillis, long lastApplyDelayMillis,
                               String problem) {

        Measurement withProblem(String problem) {
            return new Measurement(appliedSeq, pending, oldestPendingMillis, lastApplyDelayMillis, problem);
        }
    }

    /** One direction between two stores, with its settings and last measurement. */
    private final class Link extends Links.Link {
        private volatile Measurement measured = new Measurement(0, 0, -1, -1, "");

        Link(RegionalStore from, RegionalStore to, Duration delay) {
            super(from, to, delay);
        }

        void replicateDue() {
            try {
                measured = measure();
            } catch (RuntimeException e) {
                // A store failing unexpectedly must not stop the other links or the background rounds.
                measured = measured.withProblem(from.region() + "->" + to.region() + ": " + e);
            }
        }

        private Measurement measure() {
            // An unreachable target applied nothing since the last round: count its backlog from there.
            StoreResult<Long> applied = to.appliedSeq(from.replicaId());
            long appliedSeq = applied.isOk() ? applied.value() : measured.appliedSeq();
            StoreResult<List<Change>> changes = from.changesSince(appliedSeq, batchSize);
            if (!changes.isOk()) {
                // The origin cannot be read: nothing is known to have moved, so the lag keeps growing from before.
                return measured.withProblem(changes.detail());
            }
            long now = clock.millis();
            long delayMillis = delay.toMillis();
            long lastApplyDelay = measured.lastApplyDelayMillis();
            String problem = applied.isOk() ? "" : applied.detail();
            List<Change> unapplied = changes.value();
            int shipped = 0;
            while (shipped < unapplied.size() && !paused
                   && unapplied.get(shipped).writtenAt().toEpochMilli() + delayMillis <= now) {
                Change change = unapplied.get(shipped);
                String refused = apply(change);
                if (!refused.isEmpty()) {
                    problem = refused;
                    break;
                }
                shipped++;
                appliedSeq = change.seq();
                lastApplyDelay = clock.millis() - change.writtenAt().toEpochMilli();
            }
            if (shipped == batchSize) {
                // A full batch may not be all of the log: the next change is at most as old as the last one shipped.
                long lastShipped = unapplied.get(shipped - 1).writtenAt().toEpochMilli();
                return new Measurement(appliedSeq, 1, lastShipped, lastApplyDelay, problem);
            }
            long oldestPending = shipped < unapplied.size() ? unapplied.get(shipped).writtenAt().toEpochMilli() : -1;
            return new Measurement(appliedSeq, unapplied.size() - shipped, oldestPending, lastApplyDelay, problem);
        }

        /** Applies one change; empty when applied, else why not. */
        private String apply(Change change) {
            try {
                StoreResult<Boolean> result = reconciler.deliver(change, to);
                return result.isOk() ? "" : result.detail();
            } catch (RuntimeException e) {
                // A change that cannot be decoded or is out of order stalls this link, visibly, not the others.
                return "change " + change.id() + ": " + e.getMessage();
            }
        }

        @Override
        LinkStatus status() {
            Measurement m = measured;
            long lag = m.oldestPendingMillis() < 0 ? 0 : Math.max(0, clock.millis() - m.oldestPendingMillis());
            return new LinkStatus(from.region(), to.region(), paused, delay, m.appliedSeq(), m.pending(), lag,
                                  m.lastApplyDelayMillis(), m.problem());
        }
    }
}
