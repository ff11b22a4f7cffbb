package io.unitas.cache.kafka;

/**
 * A loop that applies the invalidations of one topic to a cache, committing its offset once they are applied and
 * synced, so a restarted consumer replays from the first event it had not applied. Built by
 * {@link KafkaInvalidations#consumer}.
 */
public interface InvalidationConsumer extends AutoCloseable {

    /** Starts the loop on its own thread; returns this. */
    InvalidationConsumer start();

    /** The loop's state now. */
    ConsumerState state();

    /** Stops the loop (what it applied is committed) and closes its clients. */
    @Override
    void close();
}
