package io.unitas.cache;

import java.util.concurrent.CompletionStage;

/**
 * What the data layer calls when it makes or applies a change of a cached key: every cache that holds the key is
 * told, over a transport such as Kafka ({@code io.unitas.cache.kafka.KafkaInvalidations#publisher}).
 *
 * <p>Call it after the change is committed (an invalidation published before the commit lets a reader load and
 * cache the old value after the event was applied).
 */
public interface InvalidationPublisher extends AutoCloseable {

    /** Publishes {@code invalidation}; the stage completes when the transport has it durably. */
    CompletionStage<Void> publish(Invalidation invalidation);

    /** Flushes what was published and releases the transport. */
    @Override
    void close();
}
