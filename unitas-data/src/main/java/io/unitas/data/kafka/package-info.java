/**
 * Replication between regions over Apache Kafka: {@link io.unitas.data.kafka.KafkaTransport}, a
 * {@link io.unitas.data.outbox.ChangeTransport} beside the embedded one. Needs {@code org.apache.kafka:kafka-clients}
 * on the classpath (an optional dependency of unitas-data).
 */
package io.unitas.data.kafka;
