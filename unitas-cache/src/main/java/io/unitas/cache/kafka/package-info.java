/**
 * Invalidations over Kafka: {@link io.unitas.cache.kafka.KafkaInvalidations#publisher} for the side that makes or
 * applies changes, {@link io.unitas.cache.kafka.KafkaInvalidations#consumer} for each process that holds a cache.
 * Needs {@code org.apache.kafka:kafka-clients} on the classpath (an optional dependency of this module).
 */
package io.unitas.cache.kafka;
