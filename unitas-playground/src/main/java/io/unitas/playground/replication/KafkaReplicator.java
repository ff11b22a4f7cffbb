package io.unitas.playground.replication;

import io.unitas.core.Region;
import io.unitas.data.kafka.KafkaTransport;
import io.unitas.data.outbox.ApplyResult;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.StoppedStream;
import io.unitas.data.store.StoreResult;
import io.unitas.playground.store.Change;
import io.unitas.playground.store.ChangeReconciler;
import io.unitas.playground.store.RegionalStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Replicator} through Apache Kafka: each region's store log is published by that region's
 * {@link KafkaTransport} to its changes topic, and each region's transport receives the others' into its store through
 * an applier that delivers with the playground's {@link ChangeReconciler}. Offsets are kept in each store's own
 * database, so a change read twice is applied once.
 *
 * <p>A store's log is one ordered stream (its sequence has no gaps and a target applies it in order), so the record key
 * is the store's replica id: one log, one partition, its order kept. A paused link or a change not yet due (the
 * injected delay) is refused by the target's applier as unavailable, so the receiver holds it and offers it again;
 * the backlog waits in Kafka. Lag is measured as the embedded replicator measures it, from the stores: the age of the
 * oldest change of the origin's log the target has not applied.
 */
final class KafkaReplicator implements Replicator {

    private static final Logger log = LoggerFactory.getLogger(KafkaReplicator.class);

    private final List<RegionalStore> stores;
    private final Clock clock;
    private final Duration pollInterval;
    private final int batchSize;
    private final ChangeReconciler reconciler;
    private final Links<Link> links = new Links<>();
    private final Map<Region, KafkaTransport> transports = new LinkedHashMap<>();
    /** Per origin, the last sequence of its log handed to Kafka. Only the round thread touches it. */
    private final Map<Region, Long> published = new HashMap<>();
    /** Deliveries of every receiving region are serialized, as the embedded replicator's rounds are. */
    private final Object deliveries = new Object();
    private long lastTrimMillis; // guarded by this
    private ScheduledExecutorService background; // guarded by this

    KafkaReplicator(List<RegionalStore> stores, Clock clock, Duration delay, Map<List<Region>, Duration> delays,
                    Duration pollInterval, int batchSize, ChangeReconciler reconciler, String bootstrapServers,
                    String topicPrefix) {
        this.stores = stores;
        this.clock = clock;
        this.pollInterval = pollInterval;
        this.batchSize = batchSize;
        this.reconciler = reconciler;
        for (RegionalStore from : stores) {
            for (RegionalStore to : stores) {
                if (from != to) {
                    List<Region> key = List.of(from.region(), to.region());
                    links.add(new Link(from, to, delays.getOrDefault(key, delay)));
                }
            }
        }
        List<Region> regions = stores.stream().map(RegionalStore::region).toList();
        try {
            for (RegionalStore store : stores) {
                // The receiver polls at most every 100 ms; a held change is offered again on the next pass.
                transports.put(store.region(), KafkaTransport.builder(store.region(), bootstrapServers)
                        .regions(regions).topicPrefix(topicPrefix).partitions(1).clock(clock)
                        .retryStopped(Duration.ofMillis(10))
                        .receiver(new StoreApplier(store), store.database()).build());
            }
        } catch (RuntimeException e) {
            transports.values().forEach(KafkaTransport::close);
            throw e;
        }
    }

    @Override
    public synchronized void replicateDue() {
        // Moves are observed every round, as the embedded replicator does, not only when changes arrive: the
        // reconciler dates a move by when it saw it, so a late look would date a move back after the writes it allows.
        observeHomes();
        for (RegionalStore origin : stores) {
            publish(origin);
        }
        for (Link link : links.all()) {
            link.measure();
        }
        long now = clock.millis();
        if (now - lastTrimMillis >= EmbeddedReplicator.TRIM_EVERY.toMillis()) {
            lastTrimMillis = now;
            Map<RegionalStore, Long> shipped = new LinkedHashMap<>();
            for (Link link : links.all()) {
                shipped.merge(link.from, link.measured.appliedSeq(), Math::min);
            }
            shipped.forEach(RegionalStore::trim);
        }
    }

    private void observeHomes() {
        synchronized (deliveries) {
            try {
                reconciler.beforeRound();
            } catch (RuntimeException e) {
                // Not knowing the homes now must not stop replication: a move is seen on a later round.
                log.debug("kafka replication: cannot read the units' homes: {}", e.toString());
            }
        }
    }

    /** Hands {@code origin}'s new changes to Kafka; on a failed publish, starts again from what every target applied. */
    private void publish(RegionalStore origin) {
        KafkaTransport transport = transports.get(origin.region());
        if (!transport.replayRequests(origin.region()).isEmpty()) {
            published.remove(origin.region());
        }
        long from = published.computeIfAbsent(origin.region(), r -> appliedEverywhere(origin));
        StoreResult<List<Change>> changes = origin.changesSince(from, batchSize);
        if (!changes.isOk() || changes.value().isEmpty()) {
            return; // an unreadable origin ships nothing; its links' lag grows and says why
        }
        List<ChangeEnvelope> envelopes = new ArrayList<>();
        for (Change change : changes.value()) {
            envelopes.add(new ChangeEnvelope(change.originReplica(), change.origin(), change.seq(),
                                             change.kind().name(), change.key(),
                                             change.payload().getBytes(StandardCharsets.UTF_8), change.writtenAt()));
        }
        try {
            transport.publish(envelopes);
            transport.flush();
            published.put(origin.region(), envelopes.get(envelopes.size() - 1).sequence());
        } catch (RuntimeException e) {
            // Kafka did not take them all: publish again from what the targets applied (duplicates apply once).
            published.remove(origin.region());
            log.warn("kafka replication from {}: {}", origin.region(), e.getMessage());
        }
    }

    /** The lowest sequence of {@code origin}'s log every other store has applied (0 when one cannot tell). */
    private long appliedEverywhere(RegionalStore origin) {
        long min = Long.MAX_VALUE;
        for (RegionalStore target : stores) {
            if (target != origin) {
                StoreResult<Long> applied = target.appliedSeq(origin.replicaId());
                min = Math.min(min, applied.isOk() ? applied.value() : 0);
            }
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }

    @Override
    public synchronized void start() {
        if (background == null) {
            transports.values().forEach(KafkaTransport::start);
            background = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "unitas-kafka-replicator");
                thread.setDaemon(true);
                return thread;
            });
            background.scheduleWithFixedDelay(() -> {
                try {
                    replicateDue();
                } catch (RuntimeException e) {
                    log.warn("kafka replication round failed: {}", e.toString());
                }
            }, 0, pollInterval.toNanos(), TimeUnit.NANOSECONDS);
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
        transports.values().forEach(KafkaTransport::close);
    }

    private Link linkByReplica(String originReplica, Region to) {
        for (Link link : links.all()) {
            if (link.to.region().equals(to) && link.from.replicaId().equals(originReplica)) {
                return link;
            }
        }
        return null;
    }

    /** What the last measurement of a link saw; its lag is told from it at any later time. */
    private record Measurement(long appliedSeq, long pending, long oldestPendingMillis) { }

    /** One direction between two stores: its settings, last measurement and last refusal. */
    private final class Link extends Links.Link {
        volatile Measurement measured = new Measurement(0, 0, -1);
        volatile long lastApplyDelayMillis = -1;
        volatile String problem = "";
        volatile String readProblem = "";

        Link(RegionalStore from, RegionalStore to, Duration delay) {
            super(from, to, delay);
        }

        void measure() {
            StoreResult<Long> applied = to.appliedSeq(from.replicaId());
            long appliedSeq = applied.isOk() ? applied.value() : measured.appliedSeq();
            StoreResult<List<Change>> pending = from.changesSince(appliedSeq, batchSize);
            if (!pending.isOk()) {
                readProblem = pending.detail();
                return; // nothing known to have moved: the lag keeps growing from the last measurement
            }
            readProblem = applied.isOk() ? "" : applied.detail();
            List<Change> unapplied = pending.value();
            measured = new Measurement(appliedSeq, unapplied.size(),
                                       unapplied.isEmpty() ? -1 : unapplied.get(0).writtenAt().toEpochMilli());
        }

        @Override
        LinkStatus status() {
            Measurement m = measured;
            long lag = m.oldestPendingMillis() < 0 ? 0 : Math.max(0, clock.millis() - m.oldestPendingMillis());
            String why = readProblem.isEmpty() ? problem : readProblem;
            return new LinkStatus(from.region(), to.region(), paused, delay, m.appliedSeq(), m.pending(), lag,
                                  lastApplyDelayMillis, why);
        }
    }

    /** The receiving end in one region: delivers other regions' store changes into its store, in each log's order. */
    private final class StoreApplier implements ChangeApplier {
        private final RegionalStore store;
        private final Map<String, StoppedStream> stopped = new ConcurrentHashMap<>();

        StoreApplier(RegionalStore store) {
            this.store = store;
        }

        @Override
        public Region region() {
            return store.region();
        }

        @Override
        public List<ApplyResult> applyAll(List<ChangeEnvelope> changes) {
            synchronized (deliveries) {
                observeHomes();
                return ChangeApplier.super.applyAll(changes);
            }
        }

        @Override
        public ApplyResult apply(ChangeEnvelope envelope) {
            Link link = linkByReplica(envelope.unit(), store.region());
            if (link == null) {
                // A log of a replica this playground does not run (a store rebuilt since): nothing to apply it to.
                return new ApplyResult(ApplyResult.Outcome.DUPLICATE, envelope, envelope.sequence(), "");
            }
            if (link.paused) {
                return new ApplyResult(ApplyResult.Outcome.UNAVAILABLE, envelope, -1, "link paused");
            }
            long now = clock.millis();
            if (envelope.writtenAt().toEpochMilli() + link.delay.toMillis() > now) {
                return new ApplyResult(ApplyResult.Outcome.UNAVAILABLE, envelope, -1, "not due yet");
            }
            Change change;
            try {
                change = new Change(envelope.origin(), envelope.unit(), envelope.sequence(),
                                    Change.Kind.valueOf(envelope.entityType()), envelope.key(),
                                    new String(envelope.payload(), StandardCharsets.UTF_8), envelope.writtenAt());
            } catch (IllegalArgumentException e) {
                return rejected(link, envelope, "change " + envelope.id() + ": " + e.getMessage());
            }
            StoreResult<Boolean> result;
            try {
                result = reconciler.deliver(change, store);
            } catch (RuntimeException e) {
                // A change that cannot be decoded or is out of order stops its log here, visibly, not the others.
                return rejected(link, envelope, "change " + change.id() + ": " + e.getMessage());
            }
            if (!result.isOk()) {
                link.problem = result.detail();
                return new ApplyResult(ApplyResult.Outcome.UNAVAILABLE, envelope, -1, result.detail());
            }
            link.problem = "";
            stopped.remove(envelope.unit());
            link.lastApplyDelayMillis = clock.millis() - change.writtenAt().toEpochMilli();
            return new ApplyResult(result.value() ? ApplyResult.Outcome.APPLIED : ApplyResult.Outcome.DUPLICATE,
                                   envelope, envelope.sequence(), "");
        }

        private ApplyResult rejected(Link link, ChangeEnvelope envelope, String reason) {
            link.problem = reason;
            StoreResult<Long> applied = store.appliedSeq(envelope.unit());
            long position = applied.isOk() ? applied.value() : -1;
            stopped.put(envelope.unit(), new StoppedStream(envelope.origin(), store.region(), envelope.unit(),
                                                           position, envelope.sequence(), reason, clock.instant()));
            return new ApplyResult(ApplyResult.Outcome.REJECTED, envelope, position, reason);
        }

        @Override
        public Map<String, Long> positions(Region origin) {
            Map<String, Long> positions = new HashMap<>();
            for (Link link : links.all()) {
                if (link.from.region().equals(origin) && link.to == store) {
                    StoreResult<Long> applied = store.appliedSeq(link.from.replicaId());
                    if (!applied.isOk()) {
                        throw new IllegalStateException(store.region() + ": " + applied.detail());
                    }
                    positions.put(link.from.replicaId(), applied.value());
                }
            }
            return positions;
        }

        @Override
        public List<StoppedStream> stopped() {
            return List.copyOf(stopped.values());
        }
    }
}
