package io.unitas.cache.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.unitas.cache.Invalidation;
import io.unitas.cache.InvalidationTarget;

/**
 * One thread: poll, apply each record (retrying with backoff, then dead-lettering), sync the target, commit; every
 * so often, read the dead letters back and apply them again. The
 * offset is committed only after the target synced what the batch applied, so a crash replays rather than loses;
 * replaying is harmless, an invalidation already applied is stale the second time.
 */
final class KafkaInvalidationConsumer implements InvalidationConsumer {

    private static final Logger log = LoggerFactory.getLogger(KafkaInvalidationConsumer.class);

    private final InvalidationConsumerBuilder config;
    private final String topic;
    private final String deadLetterTopic;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaProducer<byte[], byte[]> deadLetters;
    /** Reads the dead-letter topic back, in a group of its own whose committed offsets mark what was redriven. */
    private final KafkaConsumer<byte[], byte[]> redriver;
    private final Thread thread;
    private final Counter failed;
    private final Counter retries;
    private final Counter redriven;
    private final Counter redriveRounds;
    private Duration redriveDelay;
    private long nextRedriveMillis;
    private final AtomicLong deadLetterDepth = new AtomicLong();
    private final List<Meter> gauges = new ArrayList<>();
    private final Object stopSignal = new Object();
    private final Sleeper sleeper;
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean stopping;
    private volatile boolean running;
    private volatile long lastPollMillis = -1;
    private volatile String failure;

    KafkaInvalidationConsumer(InvalidationConsumerBuilder config) {
        this.config = config;
        this.topic = KafkaInvalidations.topic(config.cacheName);
        this.deadLetterTopic = KafkaInvalidations.deadLetterTopic(config.cacheName);
        Properties c = new Properties();
        c.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers);
        c.setProperty(ConsumerConfig.GROUP_ID_CONFIG, config.groupId);
        c.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, "unitas-cache-" + config.cacheName);
        c.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // a new group has no cache contents older than its first poll, but replaying from the start is harmless
        c.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        this.consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        Properties r = new Properties();
        r.putAll(c);
        r.setProperty(ConsumerConfig.GROUP_ID_CONFIG, config.groupId + ".dead-letter");
        r.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, "unitas-cache-redrive-" + config.cacheName);
        this.redriver = new KafkaConsumer<>(r, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.redriveDelay = config.redriveEvery;
        this.sleeper = config.sleeper != null ? config.sleeper : this::awaitStop;
        Properties p = new Properties();
        p.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers);
        p.setProperty(ProducerConfig.CLIENT_ID_CONFIG, "unitas-cache-dead-letter-" + config.cacheName);
        p.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        this.deadLetters = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        this.thread = new Thread(this::run, "unitas-cache-invalidations-" + config.cacheName);
        this.thread.setDaemon(true);
        MeterRegistry registry = config.registry;
        String cache = config.cacheName;
        this.failed = Counter.builder("unitas.cache.invalidations").tag("cache", cache).tag("outcome", "failed")
                .description("invalidations that could not be applied and went to the dead-letter topic")
                .register(registry);
        this.retries = Counter.builder("unitas.cache.invalidations.retries").tag("cache", cache)
                .description("attempts of an invalidation after one that failed").register(registry);
        this.redriveRounds = Counter.builder("unitas.cache.invalidations.redrive.rounds").tag("cache", cache)
                .description("rounds of reading the dead letters back").register(registry);
        this.redriven = Counter.builder("unitas.cache.invalidations.redriven").tag("cache", cache)
                .description("dead letters applied when read back from the dead-letter topic").register(registry);
        // gauges hold this consumer: removed at close, so a consumer started again in this process reports itself
        gauges.add(Gauge.builder("unitas.cache.invalidations.dead_letter.depth", deadLetterDepth, AtomicLong::get)
                .tag("cache", cache).description("dead letters not redriven yet")
                .register(registry));
        gauges.add(Gauge.builder("unitas.cache.invalidations.consumer.running", this, s -> s.running ? 1 : 0)
                .tag("cache", cache).description("1 while the invalidation loop runs; 0 means events are not applied")
                .register(registry));
        gauges.add(TimeGauge.builder("unitas.cache.invalidations.consumer.last_poll_age", this, TimeUnit.MILLISECONDS,
                s -> s.lastPollMillis < 0 ? 0 : config.clock.millis() - s.lastPollMillis)
                .tag("cache", cache).description("time since the loop last returned from a poll; growing means stalled")
                .register(registry));
    }

    @Override
    public InvalidationConsumer start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("cache '" + config.cacheName + "': the invalidation consumer of " + topic
                    + " was already started or closed (expected: start once, before close)");
        }
        running = true;
        thread.start();
        return this;
    }

    @Override
    public ConsumerState state() {
        long last = lastPollMillis;
        return new ConsumerState(running, last < 0 ? null : Instant.ofEpochMilli(last), failure);
    }

    private void run() {
        try {
            consumer.subscribe(List.of(topic));
            nextRedriveMillis = config.clock.millis() + redriveDelay.toMillis();
            measureDeadLetterDepth();
            while (!stopping) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(config.pollTimeout);
                lastPollMillis = config.clock.millis();
                boolean deadLettered = false;
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    deadLettered |= !handle(record);
                }
                if (!records.isEmpty()) {
                    config.target.sync();
                    consumer.commitSync();
                }
                if (deadLettered) {
                    measureDeadLetterDepth();
                }
                if (config.clock.millis() >= nextRedriveMillis) {
                    // a round that could not apply everything waits twice as long before the next one
                    redriveDelay = redrive() ? config.redriveEvery
                            : redriveDelay.multipliedBy(2).compareTo(config.maxRedriveEvery) > 0
                                    ? config.maxRedriveEvery : redriveDelay.multipliedBy(2);
                    nextRedriveMillis = config.clock.millis() + redriveDelay.toMillis();
                    measureDeadLetterDepth();
                    redriveRounds.increment();
                }
            }
        } catch (Throwable e) { // an Error too: a dead loop must say so, not vanish
            if (!stopping) { // a close wakes the poll and interrupts a backoff wait: not a failure
                stopped(e);
            }
        } finally {
            running = false;
            for (AutoCloseable client : List.of(consumer, redriver)) {
                try {
                    client.close();
                } catch (Exception e) {
                    log.warn("cache '{}': closing the invalidation consumer: {}", config.cacheName, e.toString());
                }
            }
        }
    }

    private void stopped(Throwable e) {
        failure = e.toString();
        log.error("cache '{}': the invalidation consumer of {} stopped: {}; invalidations are not applied until it "
                + "is restarted (it resumes from its last committed offset)", config.cacheName, topic, e.toString());
    }

    /** Applies one record; false when it went to the dead-letter topic. */
    private boolean handle(ConsumerRecord<byte[], byte[]> record) throws InterruptedException, ExecutionException {
        Invalidation invalidation;
        try {
            invalidation = InvalidationCodec.decode(record.key(), record.value());
        } catch (IllegalArgumentException e) {
            // no retry: the same bytes will not decode the next time
            deadLetter(record, e.getMessage(), 0, null);
            return false;
        }
        Duration backoff = config.initialBackoff;
        for (int attempt = 1;; attempt++) {
            try {
                config.target.invalidate(invalidation);
                return true;
            } catch (RuntimeException e) {
                if (attempt >= config.maxAttempts) {
                    deadLetter(record, e.toString(), attempt, null);
                    return false;
                }
                retries.increment();
                sleeper.sleep(backoff);
                backoff = backoff.multipliedBy(2).compareTo(config.maxBackoff) > 0 ? config.maxBackoff
                        : backoff.multipliedBy(2);
            }
        }
    }

    /** Writes the record to the dead-letter topic and waits for the broker to have it before the offset moves on. */
    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String error, int attempts, String from)
            throws InterruptedException, ExecutionException {
        failed.increment();
        String source = from != null ? from : record.topic() + "-" + record.partition() + "@" + record.offset();
        log.warn("cache '{}': invalidation {} dead-lettered to {} after {} attempt(s): {}", config.cacheName, source,
                deadLetterTopic, attempts, error);
        ProducerRecord<byte[], byte[]> dead = new ProducerRecord<>(deadLetterTopic, record.key(), record.value());
        dead.headers().add("unitas.error", error.getBytes(StandardCharsets.UTF_8));
        dead.headers().add("unitas.attempts", String.valueOf(attempts).getBytes(StandardCharsets.UTF_8));
        dead.headers().add("unitas.source", source.getBytes(StandardCharsets.UTF_8));
        deadLetters.send(dead).get();
    }

    /**
     * Reads the dead letters written before this round began and applies each once; one that fails again is
     * dead-lettered again (its attempts counted on), one that does not decode is left behind with a log line.
     * Returns whether every one was applied.
     */
    private boolean redrive() throws InterruptedException, ExecutionException {
        List<TopicPartition> partitions = deadLetterPartitions();
        if (partitions.isEmpty()) {
            return true;
        }
        if (!redriver.assignment().containsAll(partitions)) {
            redriver.assign(partitions);
        }
        Map<TopicPartition, Long> end = redriver.endOffsets(partitions);
        boolean allApplied = true;
        for (int polls = 0; polls < 20 && !stopping && !caughtUp(end); polls++) {
            for (ConsumerRecord<byte[], byte[]> record : redriver.poll(Duration.ofMillis(200))) {
                if (record.offset() >= end.get(new TopicPartition(record.topic(), record.partition()))) {
                    continue; // written during this round (a dead letter of this round): the next round's
                }
                Invalidation invalidation;
                try {
                    invalidation = InvalidationCodec.decode(record.key(), record.value());
                } catch (IllegalArgumentException e) {
                    log.warn("cache '{}': dead letter {}-{}@{} not redriven: {}", config.cacheName, record.topic(),
                            record.partition(), record.offset(), e.getMessage());
                    continue;
                }
                try {
                    config.target.invalidate(invalidation);
                    redriven.increment();
                } catch (RuntimeException e) {
                    allApplied = false;
                    deadLetter(record, e.toString(), header(record, "unitas.attempts", 0) + 1,
                            headerText(record, "unitas.source"));
                }
            }
        }
        // what this round applied is synced before the redrive group's offsets move past it
        config.target.sync();
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        for (TopicPartition tp : partitions) {
            done.put(tp, new OffsetAndMetadata(
                    Math.min(redriver.position(tp), end.get(tp))));
        }
        redriver.commitSync(done);
        // a poll may have fetched past the round's end (dead letters of this round): read them next round
        done.forEach((tp, offset) -> redriver.seek(tp, offset));
        return allApplied;
    }

    private boolean caughtUp(Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (redriver.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    private static int header(ConsumerRecord<byte[], byte[]> record, String key, int otherwise) {
        String text = headerText(record, key);
        try {
            return text == null ? otherwise : Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    private static String headerText(ConsumerRecord<byte[], byte[]> record, String key) {
        Header h = record.headers().lastHeader(key);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private List<TopicPartition> deadLetterPartitions() {
        List<PartitionInfo> infos = redriver.listTopics().get(deadLetterTopic);
        List<TopicPartition> partitions = new ArrayList<>();
        if (infos != null) {
            for (PartitionInfo info : infos) {
                partitions.add(new TopicPartition(info.topic(), info.partition()));
            }
        }
        return partitions;
    }

    /** The backoff wait: ends early, throwing, when the consumer is closed. */
    private void awaitStop(Duration duration) throws InterruptedException {
        long deadline = System.nanoTime() + duration.toNanos();
        synchronized (stopSignal) {
            for (long left = duration.toNanos(); !stopping && left > 0; left = deadline - System.nanoTime()) {
                TimeUnit.NANOSECONDS.timedWait(stopSignal, left);
            }
        }
        if (stopping) {
            throw new InterruptedException("closing");
        }
    }

    /** Dead letters not redriven yet: the topic's end offsets minus the redrive group's committed ones. */
    private void measureDeadLetterDepth() {
        List<TopicPartition> partitions = deadLetterPartitions();
        if (partitions.isEmpty()) {
            deadLetterDepth.set(0);
            return;
        }
        Map<TopicPartition, Long> end = redriver.endOffsets(partitions);
        Map<TopicPartition, Long> begin = redriver.beginningOffsets(partitions);
        Map<TopicPartition, OffsetAndMetadata> committed =
                redriver.committed(new HashSet<>(partitions));
        long depth = 0;
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata c = committed.get(tp);
            long from = Math.max(begin.getOrDefault(tp, 0L), c == null ? 0L : c.offset());
            depth += end.getOrDefault(tp, 0L) - from;
        }
        deadLetterDepth.set(depth);
    }

    @Override
    public void close() {
        if (!started.get()) {
            // never started: the loop that closes the consumers will not run
            started.set(true);
            consumer.close();
            redriver.close();
            deadLetters.close();
            gauges.forEach(config.registry::remove);
            return;
        }
        stopping = true;
        synchronized (stopSignal) {
            stopSignal.notifyAll(); // a backoff wait ends at once; what was applied before it is committed
        }
        consumer.wakeup();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        deadLetters.close();
        gauges.forEach(config.registry::remove);
    }

    @Override
    public String toString() {
        return "InvalidationConsumer[" + topic + ", group " + config.groupId + "]";
    }
}
