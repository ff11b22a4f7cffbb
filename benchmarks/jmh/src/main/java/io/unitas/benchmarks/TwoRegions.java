package io.unitas.benchmarks;

import io.unitas.core.Region;
import io.unitas.playground.store.RegionalStore;
import java.time.Clock;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** Two embedded regional stores, cn and eu, on the system clock; the data benchmarks' shared fixture. */
@State(Scope.Benchmark)
public class TwoRegions {

    static final Region CN = Region.of("cn");
    static final Region EU = Region.of("eu");

    final RegionalStore cn = RegionalStore.embedded(CN, Clock.systemUTC());
    final RegionalStore eu = RegionalStore.embedded(EU, Clock.systemUTC());

    /** Closes both stores. */
    @TearDown
    public void close() {
        cn.close();
        eu.close();
    }
}
