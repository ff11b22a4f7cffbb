package io.unitas.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class KafkaClusterTest {

    /** The storage tool reads an id that starts with '-' as an option and exits 1: one cluster in 64 failed to boot. */
    @Test
    void aClusterIdNeverLooksLikeAnOption() {
        for (int i = 0; i < 10_000; i++) {
            assertThat(KafkaCluster.newClusterId()).doesNotStartWith("-").hasSize(22);
        }
    }

    @Test
    void aRecordAcknowledgedByAllReplicasSurvivesTheBrokerKilledAndRestartedOnItsData() throws Exception {
        KafkaCluster kafka = KafkaCluster.shared();
        String topic = "testkit-probe-" + System.nanoTime();
        try (Admin admin = kafka.admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = producer(kafka)) {
            producer.send(new ProducerRecord<>(topic, "k", "before the kill")).get(30, TimeUnit.SECONDS);
        }

        kafka.kill(1);
        assertThat(kafka.running()).isEmpty();
        kafka.restart(1);

        assertThat(kafka.running()).containsExactly(1);
        assertThat(readAll(kafka, topic, 1)).containsExactly("before the kill");
    }

    private static KafkaProducer<String, String> producer(KafkaCluster kafka) {
        Properties p = new Properties();
        p.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static List<String> readAll(KafkaCluster kafka, String topic, int expected) {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                                                                          new StringDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<String> values = new ArrayList<>();
            // bounded by polls, not by time: each poll waits at most 2 s for the restarted broker
            for (int poll = 0; poll < 30 && values.size() < expected; poll++) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofSeconds(2))) {
                    values.add(record.value());
                }
            }
            return values;
        }
    }
}
