package io.unitas.cache.kafka;

import java.time.Duration;

/** Waits between attempts of an invalidation. */
@FunctionalInterface
interface Sleeper {

    void sleep(Duration duration) throws InterruptedException;
}
