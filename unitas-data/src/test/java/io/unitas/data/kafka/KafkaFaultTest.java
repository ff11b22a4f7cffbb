package io.unitas.data.kafka;

import static io.unitas.data.kafka.KafkaRegions.ALL;
import static io.unitas.data.kafka.KafkaRegions.CN;
import static io.unitas.data.kafka.KafkaRegions.EU;
import static io.unitas.data.kafka.KafkaRegions.US;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.outbox.ApplyResult;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.ChangeTransport;
import io.unitas.data.outbox.StoppedStream;
import io.unitas.testkit.Await;
import io.unitas.testkit.KafkaCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/** Faults of the processes around the broker, each counted: changes lost 0, applied twice 0. */
class KafkaFaultTest {

    private static final Duration SETTLE = Duration.ofSeconds(90);

    /**
     * The relay's crash is an injected crash point, not a killed JVM: the transport's flush returns (Kafka holds every
     * change published) and then an {@link Error} ends the shipping loop before the round reads acknowledgements or
     * trims the outbox; the region's shipper and transport are then dropped, as a killed process drops them, and
     * started afresh. A point chosen this way is exactly between publish and marking sent, every time.
     */
    @Test
    void theRelayCrashedBetweenPublishAndMarkingSent_restartsWithoutLossOrDoubleApply() {
        try (KafkaRegions regions = new KafkaRegions(KafkaCluster.shared(), 4)) {
            regions.start(EU); // us is down throughout the crash: cn's restart must publish again what us lacks
            AtomicBoolean armed = new AtomicBoolean(true);
            AtomicInteger crashes = new AtomicInteger();
            regions.start(CN, t -> new CrashAfterFlush(t, armed, crashes));
            for (int unit = 0; unit < 5; unit++) {
                regions.write(CN, "u" + unit, 30);
            }
            Await.until("the relay crashed after a publish", SETTLE, () -> crashes.get() == 1);
            regions.stop(CN); // the process is gone: what it held in memory with it
            for (int unit = 0; unit < 5; unit++) {
                regions.write(CN, "u" + unit, 30); // the service writes on meanwhile
            }
            regions.start(CN);
            regions.start(US);

            Await.until("eu and us have every change of cn", SETTLE,
                        () -> regions.lost(EU).isEmpty() && regions.lost(US).isEmpty());
            for (Region target : List.of(EU, US)) {
                assertThat(regions.lost(target)).isEmpty();
                assertThat(regions.appliedTwice(target)).isEmpty();
                assertThat(regions.appliedCount(target)).isEqualTo(300);
                assertThat(regions.outOfOrder(target)).isEmpty();
            }
            // the changes of the crashed round went to Kafka again after the restart, and were applied once
            assertThat(republished(regions)).isPositive();
        }
    }

    /** A broker of three killed with SIGKILL and restarted on its data while all three regions keep writing. */
    @Test
    void aBrokerKilledAndRestartedMidStream_noneLostNoneTwice() throws Exception {
        KafkaCluster trio = KafkaCluster.sharedTrio();
        try (KafkaRegions regions = new KafkaRegions(trio, 4)) {
            regions.startAll();
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger rounds = new AtomicInteger();
            Thread writer = new Thread(() -> {
                while (writing.get()) {
                    int round = rounds.getAndIncrement();
                    for (Region region : ALL) {
                        regions.write(region, region.id() + "-u" + round % 8, 5);
                    }
                }
            }, "writer");
            writer.start();
            try {
                Await.until("some rounds written", SETTLE, () -> rounds.get() >= 10);
                trio.kill(2);
                int atKill = rounds.get();
                Await.until("writes go on with a broker down", SETTLE, () -> rounds.get() >= atKill + 20);
                trio.restart(2);
                int atRestart = rounds.get();
                Await.until("writes go on after the restart", SETTLE, () -> rounds.get() >= atRestart + 10);
            } finally {
                writing.set(false);
                writer.join();
                if (trio.running().size() < 3) {
                    trio.restart(2); // leave the shared cluster whole
                }
            }

            Await.until("every change applied everywhere", SETTLE, () -> regions.allApplied(Set.of()));
            for (Region region : ALL) {
                assertThat(regions.lost(region)).isEmpty();
                assertThat(regions.appliedTwice(region)).as("applied twice in " + region).isEmpty();
                assertThat(regions.outOfOrder(region)).as("out of order in " + region).isEmpty();
            }
            assertThat(regions.totalWritten()).isGreaterThanOrEqualTo(40 * 3 * 5);
        }
    }

    @Test
    void aReceivingLoopThatDies_saysSoInItsStatusItsMeterAndItsLog() {
        try (KafkaRegions regions = new KafkaRegions(KafkaCluster.shared(), 1)) {
            regions.start(CN);
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            ChangeApplier dying = new DyingApplier(regions.applier.get(EU));
            try (KafkaTransport eu = KafkaTransport.builder(EU, regions.kafka.bootstrapServers()).regions(ALL)
                    .receiver(dying, regions.db.get(EU)).topicPrefix(regions.prefix).partitions(1)
                    .registry(meters).build()) {
                eu.start();
                regions.write(CN, "u", 1);

                Await.until("eu's receiver reports its death", SETTLE, () -> !eu.status().healthy());
                assertThat(eu.status().reason()).startsWith("kafka receiver of eu: loop died:")
                        .contains("the applier's thread ran out of memory");
                assertThat(meters.get("unitas.data.kafka.receiver.alive").tag("region", "eu").gauge().value())
                        .isZero();
            }
        }
    }

    /** How many change records cn's topic holds beyond one per change written. */
    private static int republished(KafkaRegions regions) {
        String topic = KafkaTransport.changesTopic(regions.prefix, CN);
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, regions.kafka.bootstrapServers());
        Map<String, Integer> copies = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                                                                          new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    copies.merge(ChangeCodec.decode(r.value()).id(), 1, Integer::sum);
                }
            }
        }
        return copies.values().stream().mapToInt(c -> c - 1).sum();
    }

    /** Hands on to a transport; its first flush after being armed ends the shipping loop as a crash would. */
    private record CrashAfterFlush(ChangeTransport delegate, AtomicBoolean armed, AtomicInteger crashes)
            implements ChangeTransport {

        @Override
        public void publish(List<ChangeEnvelope> changes) {
            delegate.publish(changes);
            if (!changes.isEmpty() && armed.get()) {
                armed.set(false);
                crashes.set(-1); // the next flush crashes
            }
        }

        @Override
        public void flush() {
            delegate.flush();
            if (crashes.compareAndSet(-1, 1)) {
                throw new Error("crash point: after publish, before marking sent");
            }
        }

        @Override
        public Map<String, Long> acknowledged(Region origin, Region target) {
            return delegate.acknowledged(origin, target);
        }

        @Override
        public List<StoppedStream> stopped(Region origin) {
            return delegate.stopped(origin);
        }

        @Override
        public Set<Region> replayRequests(Region origin) {
            return delegate.replayRequests(origin);
        }

        @Override
        public void close() {
            // the transport is the region's; KafkaRegions closes it
        }
    }

    /** An applier whose thread fails beyond any catch of the loop's own. */
    private record DyingApplier(ChangeApplier delegate) implements ChangeApplier {

        @Override
        public Region region() {
            return delegate.region();
        }

        @Override
        public ApplyResult apply(ChangeEnvelope change) {
            throw new OutOfMemoryError("the applier's thread ran out of memory");
        }

        @Override
        public List<ApplyResult> applyAll(List<ChangeEnvelope> changes) {
            throw new OutOfMemoryError("the applier's thread ran out of memory");
        }

        @Override
        public Map<String, Long> positions(Region origin) {
            return delegate.positions(origin);
        }

        @Override
        public List<StoppedStream> stopped() {
            return delegate.stopped();
        }
    }
}
