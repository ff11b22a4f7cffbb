package io.unitas.cache.kafka;

import java.time.Instant;

/**
 * What an {@link InvalidationConsumer} is doing, for a health check: whether its loop runs, when it last polled (a
 * loop that runs but has not polled for long is stalled), and why it stopped if it did.
 *
 * @param running whether the loop is running
 * @param lastPoll when the loop last returned from a poll, or null before the first
 * @param failure why the loop stopped, or null while it runs or after a close
 */
public record ConsumerState(boolean running, Instant lastPoll, String failure) {
}
