package io.unitas.data.kafka;

import static io.unitas.data.kafka.KafkaRegions.ALL;
import static io.unitas.data.kafka.KafkaRegions.CN;
import static io.unitas.data.kafka.KafkaRegions.EU;
import static io.unitas.data.kafka.KafkaRegions.US;
import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.StoppedStream;
import io.unitas.data.outbox.UnitLagReport;
import io.unitas.testkit.Await;
import io.unitas.testkit.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/** Replication through the testkit's shared Kafka broker between three regions on PostgreSQL. */
class KafkaReplicationTest {

    private static final Duration SETTLE = Duration.ofSeconds(60);

    @Test
    void everyChangeOfThreeRegionsIsAppliedOnceEverywhereInItsUnitsOrder() {
        try (KafkaRegions regions = new KafkaRegions(KafkaCluster.shared(), 4)) {
            regions.startAll();
            for (Region3 w : Region3.values()) {
                for (int unit = 0; unit < 10; unit++) {
                    regions.write(w.region, w.region.id() + "-u" + unit, 20);
                }
            }

            Await.until("every change applied everywhere", SETTLE, () -> regions.allApplied(Set.of()));
            for (var region : ALL) {
                assertThat(regions.appliedTwice(region)).as("applied twice in " + region).isEmpty();
                assertThat(regions.outOfOrder(region)).as("out of order in " + region).isEmpty();
                assertThat(regions.appliedCount(region)).isEqualTo(400);
            }
            Await.until("cn's lag report at 0 for every unit", SETTLE, () -> {
                UnitLagReport lag = regions.shipper.get(CN).lag();
                return lag.lagMillis().size() == 10 && lag.lagMillis().values().stream()
                        .allMatch(byTarget -> byTarget.values().stream().allMatch(ms -> ms == 0));
            });
            assertThat(regions.transport.get(EU).acknowledged(CN, US)).hasSize(10).containsEntry("cn-u0",
                    regions.transport.get(US).acknowledged(CN, US).get("cn-u0"));
            assertThat(regions.transport.get(EU).status().healthy()).isTrue();
        }
    }

    @Test
    void partitionsAddedWhileAReceiverIsDown_unitsKeepTheirOrderAndNothingIsLost() throws Exception {
        try (KafkaRegions regions = new KafkaRegions(KafkaCluster.shared(), 2)) {
            regions.start(CN);
            regions.start(US);
            for (int unit = 0; unit < 12; unit++) {
                regions.write(CN, "u" + unit, 10);
            }
            Await.until("us has cn's first changes", SETTLE, () -> regions.lost(US).isEmpty());

            try (Admin admin = regions.kafka.admin()) {
                admin.createPartitions(Map.of(KafkaTransport.changesTopic(regions.prefix, CN),
                                              NewPartitions.increaseTo(6))).all().get(30, TimeUnit.SECONDS);
            }
            // units now hash to other partitions: their new changes land in a partition eu reads apart from the old
            for (int unit = 0; unit < 12; unit++) {
                regions.write(CN, "u" + unit, 10);
            }
            regions.start(EU); // reads all six partitions from their start, in whatever order they come

            Await.until("eu and us have every change of cn", SETTLE,
                        () -> regions.lost(EU).isEmpty() && regions.lost(US).isEmpty());
            for (var region : List.of(EU, US)) {
                assertThat(regions.appliedCount(region)).isEqualTo(240);
                assertThat(regions.appliedTwice(region)).as("applied twice in " + region).isEmpty();
                assertThat(regions.outOfOrder(region)).as("out of order in " + region).isEmpty();
            }
        }
    }

    @Test
    void aPoisonChangeStopsItsUnitWithAReasonAndADeadLetter_everyOtherUnitContinues() {
        try (KafkaRegions regions = new KafkaRegions(KafkaCluster.shared(), 4)) {
            regions.startAll();
            regions.write(CN, "good-1", 5);
            regions.write(CN, "bad", 2);
            ChangeEnvelope poison = regions.write(CN, "bad", "not-a-number"); // the amount column is an integer
            regions.write(CN, "bad", 3); // behind the poison: held, never applied before it
            for (int unit = 2; unit <= 6; unit++) {
                regions.write(CN, "good-" + unit, 5);
            }
            Set<String> behind = Set.of(poison.id());
            Set<String> heldBack = new java.util.HashSet<>(behind);
            regions.written.get(CN).stream().filter(id -> id.startsWith("cn/bad#")
                    && Long.parseLong(id.substring(id.indexOf('#') + 1)) > poison.sequence()).forEach(heldBack::add);

            Await.until("every other change of cn applied in eu and us", SETTLE,
                        () -> regions.lost(EU, heldBack).isEmpty() && regions.lost(US, heldBack).isEmpty());
            Await.until("the stop reported back to cn", SETTLE, () -> regions.shipper.get(CN).lag().stopped().size() == 2);

            for (var target : List.of(EU, US)) {
                assertThat(regions.lost(target)).containsExactlyInAnyOrderElementsOf(heldBack);
                assertThat(regions.appliedTwice(target)).isEmpty();
            }
            StoppedStream stop = regions.shipper.get(CN).lag().stopped().get(0);
            assertThat(stop.unit()).isEqualTo("bad");
            assertThat(stop.refused()).isEqualTo(poison.sequence());
            assertThat(stop.reason()).contains("22P02").contains("not-a-number");
            assertThat(regions.shipper.get(CN).status().reason()).contains("unit bad from cn stopped in");
            assertThat(regions.meters.get(EU).get("unitas.data.unit.stopped").tags("unit", "bad").gauge().value())
                    .isEqualTo(1.0);

            List<ConsumerRecord<byte[], byte[]>> dead = read(regions, regions.prefix + "deadletter", 2);
            assertThat(dead).hasSize(2);
            assertThat(dead).allSatisfy(r -> {
                assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo(poison.id());
                assertThat(new String(r.headers().lastHeader("unitas.reason").value(), StandardCharsets.UTF_8))
                        .contains("22P02");
                assertThat(ChangeCodec.decode(r.value()).sequence()).isEqualTo(poison.sequence());
            });
        }
    }

    /**
     * The issue asks for a consumer down for a minute; 10 s here, because what is tested is that the region's receiver
     * starts again from the offsets stored in its database while the others keep writing, which a longer outage does
     * not change (the records stay on the topic for its retention, days by default).
     */
    @Test
    void aRegionsReceiverDownForAWhileCatchesUpFromItsStoredOffsets_noneLostNoneTwice() {
        try (KafkaRegions regions = new KafkaRegions(KafkaCluster.shared(), 4)) {
            regions.startAll();
            regions.write(CN, "a", 20);
            regions.write(US, "b", 20);
            Await.until("eu has the first changes", SETTLE, () -> regions.lost(EU).isEmpty());

            regions.stop(EU);
            long downSince = System.nanoTime();
            int round = 0;
            while (System.nanoTime() - downSince < Duration.ofSeconds(10).toNanos()) {
                regions.write(CN, "a" + round % 3, 10);
                regions.write(US, "b" + round % 3, 10);
                round++;
            }
            Await.until("cn reports eu behind", SETTLE,
                        () -> regions.shipper.get(CN).lag().lagMillis("a0", EU) > 0);
            regions.start(EU);

            Await.until("eu caught up", SETTLE, () -> regions.allApplied(Set.of()));
            assertThat(regions.appliedTwice(EU)).isEmpty();
            assertThat(regions.outOfOrder(EU)).isEmpty();
            assertThat(regions.lost(EU)).isEmpty();
            Await.until("cn's lag of a0 in eu back to 0", SETTLE,
                        () -> regions.shipper.get(CN).lag().lagMillis("a0", EU) == 0);
        }
    }

    /**
     * Retention (here the admin's record deletion, which moves a partition's start the same way) deletes records a
     * stopped region had not read: the region asks the origin to publish again from what it acknowledged.
     */
    @Test
    void recordsDeletedBeforeAReceiverReadThem_areAskedForAgainAndApplied() throws Exception {
        try (KafkaRegions regions = new KafkaRegions(KafkaCluster.shared(), 2)) {
            regions.start(CN);
            regions.start(EU);
            regions.start(US);
            regions.write(CN, "a", 10);
            regions.write(CN, "b", 10);
            Await.until("eu and us have cn's first changes", SETTLE,
                        () -> regions.lost(EU).isEmpty() && regions.lost(US).isEmpty());
            regions.stop(EU);
            regions.write(CN, "a", 10);
            regions.write(CN, "b", 10);
            Await.until("us has the next ones", SETTLE, () -> regions.lost(US).isEmpty());

            String topic = KafkaTransport.changesTopic(regions.prefix, CN);
            try (Admin admin = regions.kafka.admin()) {
                Map<TopicPartition, org.apache.kafka.clients.admin.RecordsToDelete> all = new java.util.HashMap<>();
                for (int p = 0; p < 2; p++) {
                    TopicPartition tp = new TopicPartition(topic, p);
                    long end = admin.listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                            .partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
                    all.put(tp, org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(end));
                }
                admin.deleteRecords(all).all().get(30, TimeUnit.SECONDS);
            }
            regions.start(EU);

            Await.until("eu has every change of cn again", SETTLE, () -> regions.lost(EU).isEmpty());
            assertThat(regions.appliedCount(EU)).isEqualTo(40);
            assertThat(regions.appliedTwice(EU)).isEmpty();
            assertThat(regions.appliedTwice(US)).isEmpty();
            assertThat(regions.outOfOrder(EU)).isEmpty();
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(KafkaRegions regions, String topic, int expected) {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, regions.kafka.bootstrapServers());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                                                                          new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            for (int poll = 0; poll < 20 && records.size() < expected; poll++) {
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            }
            return records;
        }
    }

    private enum Region3 {
        C(CN), E(EU), U(US);

        final io.unitas.core.Region region;

        Region3(io.unitas.core.Region region) {
            this.region = region;
        }
    }
}
