package io.unitas.data.kafka;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.unitas.core.Region;
import io.unitas.data.outbox.ApplyResult;
import io.unitas.data.outbox.ApplyResult.Outcome;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.StoppedStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving loop of one region: reads every other region's changes topic (all partitions, assigned, no consumer
 * group: the offsets live in the region's database), holds the changes read per unit stream in sequence order, and
 * offers the streams' heads to the applier in batches. A change the applier takes (applied, or a duplicate) leaves
 * memory; one that comes before its predecessor (a gap, after partitions were added) waits for it; one the database
 * cannot take now, or the handler rejects, is offered again every {@code retryStopped} (a rejected one is first
 * copied to the dead-letter topic). After each pass, per partition, the offset of the oldest change still held (or
 * the next one to read) goes to {@code unitas_kafka_offsets}; the loop starts from there. Everything but
 * {@link #status()} and {@link #close()} runs on the loop's thread.
 *
 * <p>Meters (tag {@code region}): {@code unitas.data.kafka.receiver.passes}, {@code ...receiver.failures},
 * {@code ...receiver.pass.age} (seconds since the last pass), {@code ...receiver.alive} (0 once the loop died),
 * {@code ...receiver.held}, {@code unitas.data.kafka.deadletters}, and per partition read
 * {@code unitas.data.kafka.consumer.lag{region,topic,partition}} (records behind the end of the partition).
 */
final class KafkaReceiver {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaReceiver.class);
    /** Changes one applying call, so one transaction, takes. */
    static final int APPLY_BATCH = 2_000;

    private final KafkaTransport.Builder config;
    private final Region region;
    private final ChangeApplier applier;
    private final KafkaProducer<byte[], byte[]> producer;
    private final String acksTopic;
    private final String deadLetterTopic;
    private final Properties consumerProperties;
    private final OffsetTable offsetTable;
    private final Counter passes;
    private final Counter failures;
    private final Counter deadLetters;
    private final Map<String, Long> consumerLag = new ConcurrentHashMap<>();
    /** Removed on close, so a transport built again in the same registry meters itself, not this one. */
    private final List<Meter> meters = new java.util.concurrent.CopyOnWriteArrayList<>();

    // loop thread only
    private final Map<Stream, TreeMap<Long, Held>> held = new LinkedHashMap<>();
    private final Map<TopicPartition, TreeSet<Long>> heldOffsets = new HashMap<>();
    private final Map<TopicPartition, Long> next = new HashMap<>();
    private final Map<TopicPartition, Long> stored = new HashMap<>();
    private final Map<Stream, Map<TopicPartition, Long>> rewind = new HashMap<>();
    private final Map<Stream, Instant> retryAt = new HashMap<>();
    private final Set<Stream> gapped = new HashSet<>();
    private final Set<String> deadLettered = new HashSet<>();
    private final Map<Region, Acknowledgement> sentAcks = new HashMap<>();
    private final Map<Region, TreeMap<String, Long>> ackPositions = new HashMap<>();
    private long ackSentAt;
    private final Map<Region, Long> replayRequested = new HashMap<>();
    private Instant refreshedAt = Instant.EPOCH;

    private volatile int heldCount;
    private volatile Instant lastPass = Instant.EPOCH;
    private volatile String lastFailure = "";
    private volatile String died = "";
    private volatile boolean closed;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private Thread thread;

    KafkaReceiver(KafkaTransport.Builder config, KafkaProducer<byte[], byte[]> producer, String acksTopic,
                  String deadLetterTopic, Properties consumerProperties) {
        this.config = config;
        this.region = config.region;
        this.applier = config.applier;
        this.producer = producer;
        this.acksTopic = acksTopic;
        this.deadLetterTopic = deadLetterTopic;
        this.consumerProperties = consumerProperties;
        this.offsetTable = new OffsetTable(config.offsets);
        String r = region.id();
        this.passes = metered(Counter.builder("unitas.data.kafka.receiver.passes").tag("region", r)
                .description("passes of the region's Kafka receiving loop").register(config.registry));
        this.failures = metered(Counter.builder("unitas.data.kafka.receiver.failures").tag("region", r)
                .description("passes of the region's Kafka receiving loop that failed").register(config.registry));
        this.deadLetters = metered(Counter.builder("unitas.data.kafka.deadletters").tag("region", r)
                .description("changes rejected here and copied to the dead-letter topic").register(config.registry));
        metered(Gauge.builder("unitas.data.kafka.receiver.pass.age", this,
                      x -> Math.max(0, config.clock.millis() - x.lastPass.toEpochMilli()) / 1000.0)
                .tag("region", r).baseUnit("seconds").description("time since the receiving loop's last pass")
                .register(config.registry));
        metered(Gauge.builder("unitas.data.kafka.receiver.alive", this, x -> x.died.isEmpty() ? 1 : 0).tag("region", r)
                .description("0 once the region's Kafka receiving loop died").register(config.registry));
        metered(Gauge.builder("unitas.data.kafka.receiver.held", this, x -> x.heldCount).tag("region", r)
                .description("changes read and waiting in memory to apply").register(config.registry));
    }

    private <M extends Meter> M metered(M meter) {
        meters.add(meter);
        return meter;
    }

    synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("kafka receiver of " + region + ": already started");
        }
        lastPass = config.clock.instant(); // a loop that never passes is stalled from its start
        thread = new Thread(this::run, "unitas-kafka-receiver-" + region);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties, new ByteArrayDeserializer(),
                                                                   new ByteArrayDeserializer())) {
            consumer = c;
            while (!closed) {
                try {
                    pass();
                    passes.increment();
                    lastPass = config.clock.instant();
                    if (!lastFailure.isEmpty()) {
                        LOG.info("kafka receiver of {} recovered after: {}", region, lastFailure);
                        lastFailure = "";
                    }
                } catch (WakeupException e) {
                    break;
                } catch (RuntimeException e) {
                    failures.increment();
                    if (!e.toString().equals(lastFailure)) {
                        LOG.warn("kafka receiver of {}: pass failed: {}", region, e.toString());
                    }
                    lastFailure = e.toString();
                    pause(config.retryStopped);
                }
            }
        } catch (Throwable e) {
            if (!closed) {
                died = e.toString();
                LOG.error("kafka receiver of {}: loop died: {}", region, e.toString(), e);
            }
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(Math.min(duration.toMillis(), 1_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One pass: find partitions, read, apply what can be applied, store offsets, report back. */
    private void pass() {
        Instant now = config.clock.instant();
        if (!now.isBefore(refreshedAt.plus(config.metadataRefresh)) || consumer.assignment().isEmpty()) {
            assignNewPartitions();
            refreshedAt = now;
        }
        Map<Region, Map<String, Long>> applied = new HashMap<>();
        int read = 0;
        try {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                take(record);
                read++;
            }
        } catch (InvalidOffsetException e) {
            lostRecords(e.partitions());
        }
        applyHeld(applied);
        storeOffsets();
        acknowledge(applied, read == 0 && applied.isEmpty());
        for (TopicPartition tp : consumer.assignment()) {
            consumer.currentLag(tp).ifPresent(lag -> consumerLag.put(tp.topic() + "/" + tp.partition(), lag));
        }
    }

    /** Assigns every partition of the other regions' topics; a new one is read from its stored offset, or its start. */
    private void assignNewPartitions() {
        Set<TopicPartition> all = new HashSet<>(consumer.assignment());
        for (Region origin : config.regions) {
            if (origin.equals(region)) {
                continue;
            }
            String topic = KafkaTransport.changesTopic(config.topicPrefix, origin);
            List<PartitionInfo> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10));
            for (PartitionInfo p : partitions) {
                all.add(new TopicPartition(topic, p.partition()));
            }
        }
        Set<TopicPartition> added = new HashSet<>(all);
        added.removeAll(consumer.assignment());
        if (added.isEmpty()) {
            return;
        }
        consumer.assign(all);
        Map<TopicPartition, Long> from = offsetTable.read();
        List<TopicPartition> fresh = new ArrayList<>();
        for (TopicPartition tp : added) {
            long offset = from.getOrDefault(tp, -1L);
            if (offset >= 0) {
                consumer.seek(tp, offset);
            } else {
                fresh.add(tp);
            }
            meterLag(tp);
        }
        if (!fresh.isEmpty()) {
            consumer.seekToBeginning(fresh);
            consumer.beginningOffsets(fresh, Duration.ofSeconds(10)).forEach((tp, start) -> {
                if (start > 0) {
                    lostRecords(Set.of(tp)); // never read here, and its start already deleted: cannot tell what it held
                }
            });
        }
        if (!stored.isEmpty() || !from.isEmpty()) {
            LOG.info("kafka receiver of {}: reading {} more partitions ({} in all)", region, added.size(), all.size());
        }
        stored.putAll(from);
    }

    private void meterLag(TopicPartition tp) {
        String key = tp.topic() + "/" + tp.partition();
        metered(Gauge.builder("unitas.data.kafka.consumer.lag", consumerLag, m -> m.getOrDefault(key, 0L))
                .tags("region", region.id(), "topic", tp.topic(), "partition", String.valueOf(tp.partition()))
                .description("records of the partition not yet read by the region's receiver")
                .register(config.registry));
    }

    /**
     * Retention removed records before this region read them: read what is left from the start and ask the origin to
     * publish again from this region's acknowledged positions.
     */
    private void lostRecords(Set<TopicPartition> partitions) {
        consumer.seekToBeginning(partitions);
        for (TopicPartition tp : partitions) {
            Region origin = Region.of(tp.topic().substring((config.topicPrefix + "changes.").length()));
            // a new value each time, so the origin sees a new request
            replayRequested.merge(origin, config.clock.millis(), (a, b) -> Math.max(a + 1, b));
            LOG.error("kafka receiver of {}: {} no longer holds records from offset {} (retention deleted them before"
                      + " they were read here): asking {} to publish again", region, tp,
                      stored.getOrDefault(tp, 0L), origin);
        }
    }

    private void take(ConsumerRecord<byte[], byte[]> record) {
        TopicPartition tp = new TopicPartition(record.topic(), record.partition());
        next.put(tp, record.offset() + 1);
        ChangeEnvelope change;
        try {
            change = ChangeCodec.decode(record.value());
        } catch (IllegalArgumentException e) {
            deadLetter(record.value(), tp + "@" + record.offset(), "not a change: " + e.getMessage());
            return;
        }
        if (change.origin().equals(region)) {
            return; // not ours to apply (a mirrored topic may carry it back)
        }
        Stream stream = new Stream(change.origin(), change.unit());
        TreeMap<Long, Held> queue = held.computeIfAbsent(stream, s -> new TreeMap<>());
        gapped.remove(stream); // what it waited for may have come
        if (queue.containsKey(change.sequence())) {
            return; // read twice (republished); its first copy's offset holds the partition
        }
        if (queue.size() >= config.heldPerStream) {
            rewind.computeIfAbsent(stream, s -> new HashMap<>()).merge(tp, record.offset(), Math::min);
            return;
        }
        queue.put(change.sequence(), new Held(change, tp, record.offset()));
        heldOffsets.computeIfAbsent(tp, t -> new TreeSet<>()).add(record.offset());
    }

    private void applyHeld(Map<Region, Map<String, Long>> applied) {
        Instant now = config.clock.instant();
        while (true) {
            List<ChangeEnvelope> batch = new ArrayList<>();
            int perStream = Math.max(1, APPLY_BATCH / Math.max(1, held.size()));
            for (Map.Entry<Stream, TreeMap<Long, Held>> entry : held.entrySet()) {
                Stream stream = entry.getKey();
                Instant retry = retryAt.get(stream);
                if (gapped.contains(stream) || (retry != null && now.isBefore(retry))) {
                    continue;
                }
                int taken = 0;
                for (Held h : entry.getValue().values()) {
                    if (taken++ == perStream || batch.size() >= APPLY_BATCH) {
                        break;
                    }
                    batch.add(h.change());
                }
            }
            if (batch.isEmpty()) {
                break;
            }
            boolean moved = false;
            for (ApplyResult result : applier.applyAll(batch)) {
                ChangeEnvelope change = result.change();
                Stream stream = new Stream(change.origin(), change.unit());
                if (result.consumed()) {
                    moved = true;
                    release(stream, change.sequence());
                    retryAt.remove(stream);
                    applied.computeIfAbsent(change.origin(), o -> new HashMap<>())
                            .merge(change.unit(), result.position(), Math::max);
                } else if (result.outcome() == Outcome.GAP) {
                    gapped.add(stream);
                } else {
                    retryAt.put(stream, now.plus(config.retryStopped));
                    if (result.outcome() == Outcome.REJECTED && deadLettered.add(change.id())) {
                        deadLetter(ChangeCodec.encode(change), change.id(), result.reason());
                    }
                }
            }
            if (!moved) {
                break;
            }
        }
        heldCount = held.values().stream().mapToInt(TreeMap::size).sum();
    }

    /** Drops a consumed change from memory; a stream emptied after it overflowed reads its partitions again. */
    private void release(Stream stream, long sequence) {
        TreeMap<Long, Held> queue = held.get(stream);
        Held h = queue == null ? null : queue.remove(sequence);
        if (h != null) {
            TreeSet<Long> offsets = heldOffsets.get(h.partition());
            offsets.remove(h.offset());
        }
        if (queue != null && queue.isEmpty()) {
            held.remove(stream);
            Map<TopicPartition, Long> back = rewind.remove(stream);
            if (back != null) {
                back.forEach((tp, offset) -> {
                    if (offset < next.getOrDefault(tp, Long.MAX_VALUE)) {
                        consumer.seek(tp, offset);
                        next.put(tp, offset);
                    }
                });
                LOG.info("kafka receiver of {}: unit {} from {} caught up on what it held: reading {} again from {}",
                         region, stream.unit(), stream.origin(), back.keySet(), back);
            }
            deadLettered.removeIf(id -> id.startsWith(stream.origin() + "/" + stream.unit() + "#"));
        }
    }

    private void deadLetter(byte[] value, String id, String reason) {
        deadLetters.increment();
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(deadLetterTopic, id.getBytes(StandardCharsets.UTF_8),
                                                                     value);
        record.headers().add(new RecordHeader("unitas.target", region.id().getBytes(StandardCharsets.UTF_8)));
        record.headers().add(new RecordHeader("unitas.reason", reason.getBytes(StandardCharsets.UTF_8)));
        producer.send(record, (m, e) -> {
            if (e != null) {
                LOG.warn("kafka receiver of {}: dead letter of {} not written: {}", region, id, e.toString());
            }
        });
        LOG.error("kafka receiver of {}: change {} rejected, copied to {}: {}", region, id, deadLetterTopic, reason);
    }

    /** Per partition read, the lowest offset still held, or the next to read: where a restart seeks. */
    private void storeOffsets() {
        Map<TopicPartition, Long> changed = new HashMap<>();
        for (Map.Entry<TopicPartition, Long> n : next.entrySet()) {
            TreeSet<Long> offsets = heldOffsets.get(n.getKey());
            long from = offsets == null || offsets.isEmpty() ? n.getValue() : offsets.first();
            if (!Long.valueOf(from).equals(stored.get(n.getKey()))) {
                changed.put(n.getKey(), from);
            }
        }
        if (!changed.isEmpty()) {
            offsetTable.write(changed);
            stored.putAll(changed);
        }
    }

    /**
     * Reports, per origin, the positions applied and the streams stopped here, when they changed. Positions alone go
     * at most every {@code ackInterval}, or at once on a pass that found nothing to do; a stop, a resume or a request
     * to publish again goes at once. Every report is one more record the broker writes (and, with fsync on, flushes).
     */
    private void acknowledge(Map<Region, Map<String, Long>> applied, boolean idle) {
        Map<Region, List<StoppedStream>> stoppedByOrigin = new HashMap<>();
        for (StoppedStream s : applier.stopped()) {
            stoppedByOrigin.computeIfAbsent(s.origin(), o -> new ArrayList<>()).add(s);
        }
        long nowMillis = config.clock.millis();
        boolean due = idle || nowMillis - ackSentAt >= config.ackInterval.toMillis();
        boolean sent = false;
        for (Region origin : config.regions) {
            if (origin.equals(region)) {
                continue;
            }
            Acknowledgement before = sentAcks.get(origin);
            Map<String, Long> fromPass = applied.getOrDefault(origin, Map.of());
            List<StoppedStream> stopped = stoppedByOrigin.getOrDefault(origin, List.of());
            long replay = replayRequested.getOrDefault(origin, 0L);
            TreeMap<String, Long> positions = ackPositions.get(origin);
            if (positions == null) {
                if (fromPass.isEmpty() && stopped.isEmpty() && replay == 0) {
                    continue; // nothing from this origin yet: what the topic holds from before a restart stands
                }
                // first report since start: from what the database holds, not only what this pass applied
                positions = new TreeMap<>(applier.positions(origin));
                ackPositions.put(origin, positions);
            }
            for (Map.Entry<String, Long> unit : fromPass.entrySet()) {
                positions.merge(unit.getKey(), unit.getValue(), Math::max);
            }
            Acknowledgement now = new Acknowledgement(origin, region, new TreeMap<>(positions), stopped, replay);
            if (now.equals(before)) {
                continue;
            }
            boolean urgent = before == null || !before.stopped().equals(stopped) || before.replayRequest() != replay;
            if (!urgent && !due) {
                continue;
            }
            producer.send(new ProducerRecord<>(acksTopic, now.key(), now.encode()));
            sentAcks.put(origin, now);
            sent = true;
        }
        if (sent) {
            ackSentAt = nowMillis;
        }
    }

    KafkaTransportStatus status() {
        long age = Math.max(0, config.clock.millis() - lastPass.toEpochMilli());
        String reason;
        if (!died.isEmpty()) {
            reason = "kafka receiver of " + region + ": loop died: " + died;
        } else if (!lastFailure.isEmpty()) {
            reason = "kafka receiver of " + region + ": failing: " + lastFailure;
        } else if (thread != null && age > config.staleAfter.toMillis()) {
            reason = "kafka receiver of " + region + ": stalled: no pass for " + age / 1000 + " s (expected: every "
                     + config.staleAfter.toSeconds() + " s at most)";
        } else {
            reason = "";
        }
        return new KafkaTransportStatus(reason.isEmpty(), reason, lastPass, (long) passes.count(),
                                        (long) failures.count(), heldCount);
    }

    void close() {
        closed = true;
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        Thread t = thread;
        if (t != null) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        meters.forEach(config.registry::remove);
    }

    /** One unit's changes from one origin. */
    private record Stream(Region origin, String unit) {}

    /** A change read and not yet applied, with where it was read. */
    private record Held(ChangeEnvelope change, TopicPartition partition, long offset) {}
}
