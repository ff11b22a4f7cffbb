package io.unitas.cache;

/** What an invalidation consumer applies events to: a {@link TwoLevelCache}, or several behind one topic. */
public interface InvalidationTarget {

    /** Applies {@code invalidation}; throws when it could not be applied (the consumer retries, then dead-letters). */
    InvalidationOutcome invalidate(Invalidation invalidation);

    /**
     * Makes every invalidation applied so far durable, so that a consumer may commit its offset past them (a crash
     * after the commit must not bring back an entry the events dropped).
     */
    default void sync() {
    }
}
