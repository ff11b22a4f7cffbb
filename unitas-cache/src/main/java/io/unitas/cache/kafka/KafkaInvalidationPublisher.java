package io.unitas.cache.kafka;

import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.unitas.cache.Invalidation;
import io.unitas.cache.InvalidationPublisher;

/** An idempotent producer, acks from every in-sync replica, so a published invalidation is neither lost nor doubled. */
final class KafkaInvalidationPublisher implements InvalidationPublisher {

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;

    KafkaInvalidationPublisher(String bootstrapServers, String topic) {
        this.topic = topic;
        Properties p = new Properties();
        p.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.setProperty(ProducerConfig.CLIENT_ID_CONFIG, "unitas-cache-publisher-" + topic);
        p.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        p.setProperty(ProducerConfig.LINGER_MS_CONFIG, "1");
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    public CompletionStage<Void> publish(Invalidation invalidation) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        producer.send(new ProducerRecord<>(topic, InvalidationCodec.key(invalidation),
                InvalidationCodec.value(invalidation)), (metadata, e) -> {
                    if (e == null) {
                        done.complete(null);
                    } else {
                        done.completeExceptionally(e);
                    }
                });
        return done;
    }

    @Override
    public void close() {
        producer.close();
    }

    @Override
    public String toString() {
        return "KafkaInvalidationPublisher[" + topic + "]";
    }
}
