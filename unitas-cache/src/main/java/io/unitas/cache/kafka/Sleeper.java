package io.unitas.cache.kafka;

import java.time.Duration;

/** Waits between attempts of an invalidation. */
@FunctionalInterface
interface Sleeper {

    Sleeper THREAD = d -> Thread.sleep(d.toMillis());

    void sleep(Duration duration) throws InterruptedException;
}
