package io.unitas.data.outbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link OutboxShipper}: each round reads the outbox after the position it read last (all units at once, in position
 * order, up to the outbox's horizon), chains each unit's changes (each names the one before it) and publishes them.
 * What was published per unit lives in memory and starts, after a restart, from the least any target acknowledged,
 * so a restart republishes (at least once) and never skips. The outbox is trimmed through the highest position below
 * which every change is applied everywhere. Rounds hold this object's lock; the lag report and status are read
 * without it.
 */
final class LoopingShipper implements OutboxShipper {

    private static final Logger LOG = LoggerFactory.getLogger(LoopingShipper.class);
    private static final ArrayDeque<Pending> EMPTY = new ArrayDeque<>();

    private final Outbox outbox;
    private final ChangeTransport transport;
    private final List<Region> targets;
    private final Clock clock;
    private final MeterRegistry registry;
    private final Duration staleAfter;
    private final Counter rounds;
    private final Counter failures;
    /** Per unit, the position of the last change handed to the transport: the next one's previous. */
    private final Map<String, Long> published = new HashMap<>(); // guarded by this
    /** Per unit, the changes published and not yet applied everywhere, oldest first. */
    private final Map<String, ArrayDeque<Pending>> pending = new HashMap<>(); // guarded by this
    private final Map<Region, Map<String, Long>> acknowledged = new HashMap<>(); // guarded by this
    /** The outbox's position read up to. */
    private long cursor; // guarded by this
    private long trimmed; // guarded by this
    private final Set<String> meteredUnits = new HashSet<>(); // guarded by this
    private volatile UnitLagReport report;
    private volatile Instant lastRound = Instant.EPOCH;
    private volatile String lastFailure = "";
    private ScheduledExecutorService loop; // guarded by this

    LoopingShipper(Outbox outbox, ChangeTransport transport, Collection<Region> targets, Clock clock,
                   MeterRegistry registry, Duration staleAfter) {
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.targets = List.copyOf(targets);
        if (this.targets.contains(outbox.origin())) {
            throw new IllegalArgumentException("targets: " + this.targets + " (expected: regions other than "
                                               + outbox.origin() + ")");
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.staleAfter = Objects.requireNonNull(staleAfter, "staleAfter");
        this.report = UnitLagReport.empty(outbox.origin(), clock.instant());
        String origin = outbox.origin().id();
        this.rounds = Counter.builder("unitas.data.outbox.rounds").tag("origin", origin)
                .description("shipping rounds of the region's outbox that succeeded").register(registry);
        this.failures = Counter.builder("unitas.data.outbox.round.failures").tag("origin", origin)
                .description("shipping rounds of the region's outbox that failed").register(registry);
        Gauge.builder("unitas.data.outbox.round.age", this, s -> s.roundAgeMillis() / 1000.0).tag("origin", origin)
                .baseUnit("seconds").description("time since the last successful shipping round").register(registry);
    }

    @Override
    public synchronized void shipDue() {
        try {
            round();
            lastRound = clock.instant();
            rounds.increment();
            if (!lastFailure.isEmpty()) {
                LOG.info("outbox shipping of {} recovered after: {}", outbox.origin(), lastFailure);
                lastFailure = "";
            }
        } catch (RuntimeException e) {
            failures.increment();
            String reason = String.valueOf(e.getMessage());
            if (!reason.equals(lastFailure)) {
                LOG.warn("outbox shipping of {}: round failed: {}", outbox.origin(), reason);
            }
            lastFailure = reason;
            throw e;
        }
    }

    private void round() {
        Set<Region> replay = transport.replayRequests(outbox.origin());
        if (acknowledged.isEmpty() || !replay.isEmpty()) {
            readAcknowledged(); // else last round's, read after its flush, are current enough to chain new units on
        }
        if (!replay.isEmpty()) {
            // the transport dropped changes for these targets (over its cap): read the outbox again from the start
            // (what every region applied is trimmed) and publish from what each unit's slowest target acknowledged
            LOG.info("outbox shipping of {}: publishing again to {} from their acknowledged positions",
                     outbox.origin(), replay);
            cursor = 0;
            published.clear();
            pending.clear();
        }
        while (true) {
            List<ChangeEnvelope> read = outbox.after(cursor, BATCH);
            List<ChangeEnvelope> batch = new ArrayList<>(read.size());
            for (ChangeEnvelope change : read) {
                String unit = change.unit();
                long previous = published.computeIfAbsent(unit, this::leastAcknowledged);
                cursor = change.sequence();
                if (change.sequence() <= previous) {
                    continue; // every target has it
                }
                batch.add(change.withPrevious(previous));
                published.put(unit, change.sequence());
                pending.computeIfAbsent(unit, u -> new ArrayDeque<>())
                        .addLast(new Pending(change.sequence(), change.writtenAt().toEpochMilli()));
            }
            if (!batch.isEmpty()) {
                transport.publish(batch);
            }
            if (read.size() < BATCH) {
                break;
            }
        }
        transport.flush();
        readAcknowledged();
        long trimThrough = cursor;
        for (Map.Entry<String, ArrayDeque<Pending>> unit : pending.entrySet()) {
            long everywhere = leastAcknowledged(unit.getKey());
            ArrayDeque<Pending> queue = unit.getValue();
            while (!queue.isEmpty() && queue.peekFirst().position() <= everywhere) {
                queue.removeFirst();
            }
            if (!queue.isEmpty()) {
                trimThrough = Math.min(trimThrough, queue.peekFirst().position() - 1);
            }
        }
        if (trimThrough > trimmed) {
            outbox.trim(trimThrough);
            trimmed = trimThrough;
        }
        report = measure(outbox.oldestAfter(cursor));
    }

    /** Refreshes each target's acknowledged positions; a target that cannot tell keeps its last known ones. */
    private void readAcknowledged() {
        for (Region target : targets) {
            try {
                acknowledged.put(target, transport.acknowledged(outbox.origin(), target));
            } catch (RuntimeException e) {
                LOG.debug("acknowledged positions of {} unknown: {}", target, e.getMessage());
            }
        }
    }

    private long leastAcknowledged(String unit) {
        long least = Long.MAX_VALUE;
        for (Region target : targets) {
            least = Math.min(least, acknowledged.getOrDefault(target, Map.of()).getOrDefault(unit, 0L));
        }
        return least == Long.MAX_VALUE ? 0 : least;
    }

    /**
     * Per unit and target: the age of the first change published and not acknowledged there, or of the oldest change
     * not read for shipping yet ({@code unread}, beyond the horizon), whichever is older.
     */
    private UnitLagReport measure(Map<String, Instant> unread) {
        Instant now = clock.instant();
        Map<String, Map<Region, Long>> lag = new TreeMap<>();
        Set<String> units = new TreeSet<>(published.keySet());
        units.addAll(unread.keySet());
        for (String unit : units) {
            Map<Region, Long> byTarget = new LinkedHashMap<>();
            ArrayDeque<Pending> queue = pending.getOrDefault(unit, EMPTY);
            Instant notRead = unread.get(unit);
            for (Region target : targets) {
                long applied = acknowledged.getOrDefault(target, Map.of()).getOrDefault(unit, 0L);
                long oldest = notRead == null ? Long.MAX_VALUE : notRead.toEpochMilli();
                for (Pending change : queue) {
                    if (change.position() > applied) {
                        oldest = Math.min(oldest, change.writtenAt());
                        break;
                    }
                }
                // a change not applied is at least 1 ms behind, even in the millisecond it was written: 0 is caught up
                byTarget.put(target, oldest == Long.MAX_VALUE ? 0 : Math.max(1, now.toEpochMilli() - oldest));
            }
            lag.put(unit, byTarget);
            meter(unit);
        }
        List<StoppedStream> stopped;
        try {
            stopped = transport.stopped(outbox.origin());
        } catch (RuntimeException e) {
            stopped = report.stopped();
        }
        return new UnitLagReport(outbox.origin(), now, lag, stopped);
    }

    private void meter(String unit) {
        if (meteredUnits.add(unit)) {
            for (Region target : targets) {
                Gauge.builder("unitas.data.unit.lag", this, s -> s.report.lagMillis(unit, target) / 1000.0)
                        .tags("unit", unit, "target", target.id()).baseUnit("seconds")
                        .description("age of the oldest change of the unit not yet applied in the target region")
                        .register(registry);
            }
        }
    }

    private long roundAgeMillis() {
        return Math.max(0, clock.millis() - lastRound.toEpochMilli());
    }

    @Override
    public UnitLagReport lag() {
        return report;
    }

    @Override
    public ShipperStatus status() {
        long age = roundAgeMillis();
        String reason;
        if (!lastFailure.isEmpty()) {
            reason = "outbox shipping of " + outbox.origin() + " failing: " + lastFailure;
        } else if (age > staleAfter.toMillis()) {
            reason = "outbox shipping of " + outbox.origin() + " stalled: no round for " + age / 1000 + " s"
                     + " (expected: every " + staleAfter.toSeconds() + " s at most)";
        } else if (!report.stopped().isEmpty()) {
            reason = report.stopped().get(0).describe()
                     + (report.stopped().size() > 1 ? " (and " + (report.stopped().size() - 1) + " more)" : "");
        } else {
            reason = "";
        }
        return new ShipperStatus(reason.isEmpty(), reason, lastRound, (long) rounds.count(),
                                 (long) failures.count());
    }

    @Override
    public synchronized void start(Duration interval) {
        if (loop != null) {
            throw new IllegalStateException("outbox shipping of " + outbox.origin() + ": already started");
        }
        loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "unitas-outbox-" + outbox.origin());
            t.setDaemon(true);
            return t;
        });
        ScheduledExecutorService executor = loop;
        executor.execute(() -> loopRound(executor, interval.toNanos()));
    }

    /**
     * One round of the loop, then the next one {@code intervalNanos} after this one started, or at once when it took
     * longer: not a whole interval after its end, which would add the round's length to every change's lag. A round
     * that stalled is followed by one round, not by a burst catching up on the rounds it missed.
     */
    private void loopRound(ScheduledExecutorService executor, long intervalNanos) {
        long started = System.nanoTime();
        try {
            shipDue();
        } catch (RuntimeException e) {
            // counted and logged by shipDue; the next round tries again
        } catch (Throwable e) {
            LOG.error("outbox shipping of {}: loop died: {}", outbox.origin(), e.toString());
            throw e;
        }
        long wait = Math.max(0, intervalNanos - (System.nanoTime() - started));
        synchronized (this) {
            if (loop == executor) { // not closed meanwhile
                executor.schedule(() -> loopRound(executor, intervalNanos), wait, TimeUnit.NANOSECONDS);
            }
        }
    }

    @Override
    public synchronized void close() {
        if (loop != null) {
            loop.shutdownNow();
            loop = null;
        }
    }

    @Override
    public String toString() {
        return "OutboxShipper{" + outbox.origin() + " -> " + targets + '}';
    }

    /** A change published and not yet applied everywhere: its position and write time (epoch millis). */
    private record Pending(long position, long writtenAt) {}
}
