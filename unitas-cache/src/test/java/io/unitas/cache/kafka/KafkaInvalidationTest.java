package io.unitas.cache.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.cache.Invalidation;
import io.unitas.cache.InvalidationOutcome;
import io.unitas.cache.InvalidationPublisher;
import io.unitas.cache.InvalidationTarget;
import io.unitas.cache.TwoLevelCache;
import io.unitas.cache.ValueCodec;
import io.unitas.testkit.Await;
import io.unitas.testkit.KafkaCluster;
import io.unitas.testkit.MutableClock;

/**
 * Invalidations through a real Kafka broker (the testkit's, shared by every test class of this JVM) into a cache on
 * real RocksDB files. Each test has its own cache name, so its own topics.
 */
class KafkaInvalidationTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final String bootstrap = KafkaCluster.shared().bootstrapServers();
    private String name;
    private TwoLevelCache<String> cache;
    private InvalidationPublisher publisher;
    private InvalidationConsumer consumer;

    @BeforeEach
    void topics() {
        name = "t" + UUID.randomUUID().toString().substring(0, 8);
        KafkaInvalidations.ensureTopics(bootstrap, name, 2);
        cache = open();
        publisher = KafkaInvalidations.publisher(bootstrap, name);
    }

    @AfterEach
    void close() {
        if (consumer != null) {
            consumer.close();
        }
        publisher.close();
        cache.close();
    }

    private TwoLevelCache<String> open() {
        return TwoLevelCache.builder(name, ValueCodec.utf8()).directory(dir).meterRegistry(registry).build();
    }

    private InvalidationConsumerBuilder consumerOf(InvalidationTarget target) {
        return KafkaInvalidations.consumer(bootstrap, name, target).groupId(name + "-host-1").meterRegistry(registry);
    }

    private double count(String meter, String outcome) {
        return registry.get(meter).tag("outcome", outcome).counter().count();
    }

    private void publish(String key, long version) throws Exception {
        publisher.publish(new Invalidation(key, version, T0)).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aPublishedChange_dropsTheOlderEntry() throws Exception {
        cache.put("u-1", "ada", 1);
        consumer = consumerOf(cache).build().start();

        publish("u-1", 2);

        Await.until("u-1 invalidated", WAIT, () -> cache.getIfPresent("u-1") == null);
        assertThat(count("unitas.cache.invalidations", "applied")).isEqualTo(1);
    }

    @Test
    void anEventOlderThanTheHeldVersion_isIgnored() throws Exception {
        cache.put("u-1", "ada", 5);
        consumer = consumerOf(cache).build().start();

        publish("u-1", 3);

        Await.until("the stale event counted", WAIT,
                () -> count("unitas.cache.invalidations", "stale") == 1);
        assertThat(cache.getIfPresent("u-1")).isEqualTo("ada");
        assertThat(count("unitas.cache.invalidations", "applied")).isZero();
    }

    @Test
    void aFailingApply_isRetriedWithBackoff_thenApplied() throws Exception {
        cache.put("u-1", "ada", 1);
        AtomicInteger calls = new AtomicInteger();
        List<Duration> waits = new CopyOnWriteArrayList<>();
        InvalidationTarget flaky = inv -> {
            if (calls.incrementAndGet() <= 2) {
                throw new IllegalStateException("disk busy");
            }
            return cache.invalidate(inv);
        };
        consumer = consumerOf(flaky).retries(5, Duration.ofMillis(10), Duration.ofSeconds(1))
                .sleeper(waits::add).build().start();

        publish("u-1", 2);

        Await.until("u-1 invalidated", WAIT, () -> cache.getIfPresent("u-1") == null);
        assertThat(waits).containsExactly(Duration.ofMillis(10), Duration.ofMillis(20));
        assertThat(registry.get("unitas.cache.invalidations.retries").counter().count()).isEqualTo(2);
        assertThat(count("unitas.cache.invalidations", "failed")).isZero();
    }

    @Test
    void anApplyThatKeepsFailing_goesToTheDeadLetterTopic_afterBackingOff() throws Exception {
        List<Duration> waits = new CopyOnWriteArrayList<>();
        InvalidationTarget broken = inv -> {
            throw new IllegalStateException("disk full");
        };
        consumer = consumerOf(broken).retries(4, Duration.ofMillis(10), Duration.ofMillis(25))
                .sleeper(waits::add).build().start();

        publish("u-1", 2);

        ConsumerRecord<byte[], byte[]> dead = readOneDeadLetter();
        assertThat(new String(dead.key(), StandardCharsets.UTF_8)).isEqualTo("u-1");
        assertThat(header(dead, "unitas.error")).isEqualTo("java.lang.IllegalStateException: disk full");
        assertThat(header(dead, "unitas.attempts")).isEqualTo("4");
        assertThat(waits).containsExactly(Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(25));
        Await.until("dead-letter depth 1", WAIT,
                () -> registry.get("unitas.cache.invalidations.dead_letter.depth").gauge().value() == 1);
        assertThat(count("unitas.cache.invalidations", "failed")).isEqualTo(1);
    }

    @Test
    void deadLetters_areRedrivenOnTheirClock_untilTheyApply() throws Exception {
        MutableClock clock = new MutableClock(T0);
        AtomicBoolean healthy = new AtomicBoolean();
        cache.put("u-1", "ada", 1);
        consumer = consumerOf(inv -> {
            if (!healthy.get()) {
                throw new IllegalStateException("disk full");
            }
            return cache.invalidate(inv);
        }).retries(1, Duration.ZERO, Duration.ZERO).redrive(Duration.ofMinutes(1), Duration.ofMinutes(4))
                .clock(clock).build().start();
        publish("u-1", 2);
        Await.until("dead-lettered", WAIT, () -> count("unitas.cache.invalidations", "failed") == 1);
        Await.until("dead-letter depth 1", WAIT, () -> depth() == 1);

        // the first round finds the target still failing: dead-lettered again, still one not redriven
        clock.advance(Duration.ofMinutes(1));
        Await.until("the first round done", WAIT, () -> rounds() == 1);
        assertThat(count("unitas.cache.invalidations", "failed")).isEqualTo(2);
        assertThat(depth()).isEqualTo(1);
        assertThat(cache.getIfPresent("u-1")).isEqualTo("ada");

        // the next round is two minutes later (the delay doubled): not one minute later
        healthy.set(true);
        clock.advance(Duration.ofMinutes(1));
        // two events one after the other: by the time the second is applied, the loop has made the redrive check
        // after the first one's poll (one thread, one poll after the other)
        publish("u-2", 1);
        Await.until("u-2 applied", WAIT, () -> count("unitas.cache.invalidations", "applied") == 1);
        publish("u-3", 1);
        Await.until("u-3 applied", WAIT, () -> count("unitas.cache.invalidations", "applied") == 2);
        assertThat(rounds()).isEqualTo(1);
        clock.advance(Duration.ofMinutes(1));
        Await.until("u-1 invalidated by the redrive", WAIT, () -> cache.getIfPresent("u-1") == null);
        Await.until("dead-letter depth 0", WAIT, () -> depth() == 0);
        assertThat(registry.get("unitas.cache.invalidations.redriven").counter().count()).isEqualTo(1);
        assertThat(count("unitas.cache.invalidations", "failed")).isEqualTo(2);
    }

    private double rounds() {
        return registry.get("unitas.cache.invalidations.redrive.rounds").counter().count();
    }

    private double depth() {
        return registry.get("unitas.cache.invalidations.dead_letter.depth").gauge().value();
    }

    @Test
    void aMalformedRecord_goesToTheDeadLetterTopic_withoutRetries() throws Exception {
        List<Duration> waits = new CopyOnWriteArrayList<>();
        consumer = consumerOf(cache).sleeper(waits::add).build().start();

        try (KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(KafkaInvalidations.topic(name), "u-1".getBytes(StandardCharsets.UTF_8),
                    "{\"version\":2}".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
        }

        ConsumerRecord<byte[], byte[]> dead = readOneDeadLetter();
        assertThat(header(dead, "unitas.error"))
                .isEqualTo("record value: 13 bytes, format 123 (expected: 17 bytes, format 1, version and epoch millis)");
        assertThat(header(dead, "unitas.attempts")).isEqualTo("0");
        assertThat(waits).isEmpty();
    }

    @Test
    void aRestartedConsumer_replaysFromItsCommittedOffset() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        cache.put("u-1", "ada", 1);
        cache.put("u-2", "bob", 1);
        consumer = consumerOf(inv -> {
            seen.add(inv.key());
            return cache.invalidate(inv);
        }).build().start();
        publish("u-1", 2);
        Await.until("u-1 invalidated", WAIT, () -> cache.getIfPresent("u-1") == null);

        // the process stops: consumer and cache closed; a change is made meanwhile
        consumer.close();
        consumer = null;
        cache.close();
        publish("u-2", 2);
        seen.clear();

        cache = open();
        assertThat(cache.getIfPresent("u-2")).isEqualTo("bob"); // on disk, not yet invalidated
        consumer = consumerOf(inv -> {
            seen.add(inv.key());
            return cache.invalidate(inv);
        }).build().start();

        Await.until("u-2 invalidated", WAIT, () -> cache.getIfPresent("u-2") == null);
        assertThat(seen).containsExactly("u-2");
        assertThat(cache.getIfPresent("u-1")).isNull();
    }

    @Test
    void aLoopThatDies_saysSo() throws Exception {
        consumer = consumerOf(inv -> {
            throw new OutOfMemoryError("simulated");
        }).build().start();
        assertThat(registry.get("unitas.cache.invalidations.consumer.running").gauge().value()).isEqualTo(1);

        publish("u-1", 2);

        Await.until("the loop stopped", WAIT, () -> !consumer.state().running());
        assertThat(consumer.state().failure()).isEqualTo("java.lang.OutOfMemoryError: simulated");
        assertThat(registry.get("unitas.cache.invalidations.consumer.running").gauge().value()).isZero();
    }

    @Test
    void aStalledLoop_showsInTheLastPollAge() throws Exception {
        MutableClock clock = new MutableClock(T0);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        consumer = consumerOf(inv -> {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return cache.invalidate(inv);
        }).clock(clock).build().start();
        publish("u-1", 2);
        assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();

        clock.advance(Duration.ofMinutes(2));

        assertThat(registry.get("unitas.cache.invalidations.consumer.last_poll_age").timeGauge()
                .value(TimeUnit.SECONDS)).isEqualTo(120);
        assertThat(consumer.state().running()).isTrue();
        release.countDown();
    }

    @Test
    void aConsumerStartsOnce_andOneNeverStartedCloses() {
        InvalidationConsumer idle = consumerOf(cache).build();
        idle.close();
        assertThatThrownBy(idle::start).hasMessage("cache '" + name + "': the invalidation consumer of "
                + KafkaInvalidations.topic(name) + " was already started or closed (expected: start once, before close)");
        assertThat(idle.state().running()).isFalse();
    }

    @Test
    void aStaleEventReplayed_afterTheValueWasReloaded_isIgnored() throws Exception {
        consumer = consumerOf(cache).build().start();
        publish("u-1", 2);
        Await.until("applied", WAIT, () -> count("unitas.cache.invalidations", "applied") == 1);
        assertThat(cache.put("u-1", "ada v2", 2)).isTrue();

        // the same event again (a replay after a crash before the commit) leaves the reloaded value
        assertThat(cache.invalidate(new Invalidation("u-1", 2, T0))).isEqualTo(InvalidationOutcome.STALE);
        assertThat(cache.getIfPresent("u-1")).isEqualTo("ada v2");
    }

    private ConsumerRecord<byte[], byte[]> readOneDeadLetter() {
        try (KafkaConsumer<byte[], byte[]> reader = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, name + "-reader",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            reader.subscribe(List.of(KafkaInvalidations.deadLetterTopic(name)));
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(200))) {
                    return r;
                }
            }
            throw new AssertionError("no record on " + KafkaInvalidations.deadLetterTopic(name) + " within " + WAIT);
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String key) {
        return new String(record.headers().lastHeader(key).value(), StandardCharsets.UTF_8);
    }
}
