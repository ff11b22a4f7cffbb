package io.unitas.data.kafka;

import io.micrometer.core.instrument.Counter;
import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.StoppedStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link KafkaTransport}: one idempotent producer (changes, acknowledgements, dead letters), a reader of the
 * acknowledgements topic on its own thread (no consumer group: it reads the whole compacted topic from its start and
 * follows it), and, given an applier, a {@link KafkaReceiver} on another.
 */
final class KafkaChangeTransport implements KafkaTransport {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaChangeTransport.class);
    /** How long {@link #acknowledged} waits, once after start, for the acknowledgements already on the topic. */
    private static final Duration CATCH_UP = Duration.ofSeconds(30);

    private final KafkaTransport.Builder config;
    private final Region region;
    private final KafkaProducer<byte[], byte[]> producer;
    private final String acksTopic;
    private final String deadLetterTopic;
    private final AtomicReference<String> publishFailure = new AtomicReference<>();
    private final Set<Region> replay = ConcurrentHashMap.newKeySet();
    private final Counter publishFailures;
    /** Per "origin>target", the latest acknowledgement read. */
    private final Map<String, Acknowledgement> acks = new ConcurrentHashMap<>();
    private final Map<String, Long> replaySeen = new ConcurrentHashMap<>();
    private final CountDownLatch caughtUp = new CountDownLatch(1);
    private final Thread ackReader;
    private final KafkaReceiver receiver; // null: publishes only
    private volatile String ackFailure = "";
    private volatile boolean ackReaderDied;
    private volatile boolean closed;

    KafkaChangeTransport(KafkaTransport.Builder config) {
        this.config = config;
        this.region = config.region;
        this.acksTopic = config.topicPrefix + "acks";
        this.deadLetterTopic = config.topicPrefix + "deadletter";
        createTopics();
        this.producer = new KafkaProducer<>(producerProperties(), new ByteArraySerializer(), new ByteArraySerializer());
        this.publishFailures = Counter.builder("unitas.data.kafka.publish.failures").tag("region", region.id())
                .description("changes Kafka did not take (each makes the sender publish again)")
                .register(config.registry);
        this.receiver = config.applier == null ? null : new KafkaReceiver(config, producer, acksTopic, deadLetterTopic,
                                                                          consumerProperties());
        this.ackReader = new Thread(this::readAcknowledgements, "unitas-kafka-acks-" + region);
        ackReader.setDaemon(true);
        ackReader.start();
    }

    private Properties common() {
        Properties p = new Properties();
        p.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers);
        p.setProperty(AdminClientConfig.CLIENT_ID_CONFIG, "unitas-" + region.id());
        p.putAll(config.clientProperties);
        return p;
    }

    private Properties producerProperties() {
        Properties p = common();
        p.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        p.setProperty(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5"); // the most idempotence keeps in order
        p.setProperty(ProducerConfig.LINGER_MS_CONFIG, "2");
        p.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 * 1024));
        p.putAll(config.clientProperties);
        return p;
    }

    private Properties consumerProperties() {
        Properties p = common();
        p.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // the receiver seeks from its stored offsets; an offset retention passed is a loss to report, not to skip
        p.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.setProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        p.putAll(config.clientProperties);
        return p;
    }

    private void createTopics() {
        List<NewTopic> topics = new ArrayList<>();
        for (Region origin : config.regions) {
            topics.add(new NewTopic(KafkaTransport.changesTopic(config.topicPrefix, origin), config.partitions,
                                    config.replicationFactor));
        }
        topics.add(new NewTopic(acksTopic, 1, config.replicationFactor)
                           .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)));
        topics.add(new NewTopic(deadLetterTopic, 1, config.replicationFactor));
        try (Admin admin = Admin.create(common())) {
            for (NewTopic topic : topics) {
                try {
                    admin.createTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("kafka at " + config.bootstrapServers + ": cannot create topic "
                                                        + topic.name() + ": " + e.getCause().getMessage(), e);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("kafka at " + config.bootstrapServers + ": topics not created within 60 s"
                                            + " (expected: a reachable cluster)", e);
        }
    }

    @Override
    public Region region() {
        return region;
    }

    @Override
    public void start() {
        if (receiver != null) {
            receiver.start();
        }
    }

    @Override
    public void publish(List<ChangeEnvelope> changes) {
        for (ChangeEnvelope change : changes) {
            String topic = KafkaTransport.changesTopic(config.topicPrefix, change.origin());
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(
                    topic, change.unit().getBytes(StandardCharsets.UTF_8), ChangeCodec.encode(change));
            producer.send(record, (metadata, e) -> {
                if (e != null) {
                    publishFailures.increment();
                    if (publishFailure.getAndSet(change.id() + ": " + e) == null) {
                        LOG.warn("kafka transport of {}: change {} not taken by {}: {}; publishing again from the"
                                 + " targets' acknowledged positions", region, change.id(), topic, e.toString());
                    }
                    for (Region target : config.regions) {
                        if (!target.equals(change.origin())) {
                            replay.add(target);
                        }
                    }
                }
            });
        }
    }

    @Override
    public void flush() {
        producer.flush();
        String failed = publishFailure.getAndSet(null);
        if (failed != null) {
            throw new IllegalStateException("kafka transport of " + region + ": publish failed: " + failed);
        }
    }

    @Override
    public Map<String, Long> acknowledged(Region origin, Region target) {
        awaitCaughtUp();
        Acknowledgement ack = acks.get(origin.id() + ">" + target.id());
        return ack == null ? Map.of() : ack.positions();
    }

    private void awaitCaughtUp() {
        try {
            if (!caughtUp.await(CATCH_UP.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("kafka transport of " + region + ": " + acksTopic + " not read to its"
                                                + " end within " + CATCH_UP.toSeconds() + " s" + reasonSuffix());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading " + acksTopic, e);
        }
    }

    private String reasonSuffix() {
        return ackFailure.isEmpty() ? "" : ": " + ackFailure;
    }

    @Override
    public List<StoppedStream> stopped(Region origin) {
        List<StoppedStream> stopped = new ArrayList<>();
        for (Acknowledgement ack : acks.values()) {
            if (ack.origin().equals(origin)) {
                stopped.addAll(ack.stopped());
            }
        }
        return List.copyOf(stopped);
    }

    @Override
    public Set<Region> replayRequests(Region origin) {
        Set<Region> asked = new LinkedHashSet<>();
        if (origin.equals(region)) {
            for (Region target : Set.copyOf(replay)) {
                replay.remove(target);
                asked.add(target);
            }
        }
        for (Acknowledgement ack : acks.values()) {
            if (ack.origin().equals(origin) && ack.replayRequest() > 0) {
                String key = origin.id() + ">" + ack.target().id();
                Long seen = replaySeen.put(key, ack.replayRequest());
                if (seen == null || seen != ack.replayRequest()) {
                    if (seen != null || caughtUp.getCount() == 0) {
                        asked.add(ack.target());
                    }
                }
            }
        }
        return asked;
    }

    /** Follows the acknowledgements topic from its start; counts down {@link #caughtUp} at the end it saw first. */
    private void readAcknowledgements() {
        Properties p = common();
        p.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, "unitas-" + region.id() + "-acks");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                                                                          new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(acksTopic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = -1;
            while (!closed) {
                try {
                    if (end < 0) {
                        end = consumer.endOffsets(List.of(partition), Duration.ofSeconds(10)).get(partition);
                    }
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                        if (record.value() == null) {
                            continue;
                        }
                        Acknowledgement ack = Acknowledgement.decode(record.value());
                        Acknowledgement before = acks.put(ack.origin().id() + ">" + ack.target().id(), ack);
                        if (before == null && caughtUp.getCount() > 0) {
                            replaySeen.put(ack.origin().id() + ">" + ack.target().id(), ack.replayRequest());
                        }
                    }
                    if (caughtUp.getCount() > 0 && consumer.position(partition) >= end) {
                        caughtUp.countDown();
                    }
                    if (!ackFailure.isEmpty()) {
                        LOG.info("kafka transport of {}: reading {} again after: {}", region, acksTopic, ackFailure);
                        ackFailure = "";
                    }
                } catch (WakeupException e) {
                    break;
                } catch (RuntimeException e) {
                    if (!e.toString().equals(ackFailure)) {
                        LOG.warn("kafka transport of {}: reading {} failed: {}", region, acksTopic, e.toString());
                    }
                    ackFailure = e.toString();
                }
            }
        } catch (Throwable e) {
            if (!closed) {
                ackReaderDied = true;
                ackFailure = e.toString();
                LOG.error("kafka transport of {}: the reader of {} died: {}", region, acksTopic, e.toString());
            }
        }
    }

    @Override
    public KafkaTransportStatus status() {
        KafkaTransportStatus received = receiver == null
                ? new KafkaTransportStatus(true, "", Instant.EPOCH, 0, 0, 0) : receiver.status();
        String reason = received.reason();
        if (reason.isEmpty() && ackReaderDied) {
            reason = "kafka transport of " + region + ": the reader of " + acksTopic + " died: " + ackFailure;
        } else if (reason.isEmpty() && !ackFailure.isEmpty()) {
            reason = "kafka transport of " + region + ": reading " + acksTopic + " fails: " + ackFailure;
        }
        return new KafkaTransportStatus(reason.isEmpty(), reason, received.lastPass(), received.passes(),
                                        received.failures(), received.held());
    }

    /** The receiver, for this package's tests. */
    KafkaReceiver receiver() {
        return receiver;
    }

    @Override
    public void close() {
        closed = true;
        if (receiver != null) {
            receiver.close();
        }
        try {
            ackReader.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
        config.registry.remove(publishFailures);
    }

    @Override
    public String toString() {
        return "KafkaTransport{" + region + " at " + config.bootstrapServers + ", topics " + config.topicPrefix + "*}";
    }
}
