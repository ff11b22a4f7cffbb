package io.unitas.benchmarks;

import io.unitas.playground.store.Cart;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Merging two carts that diverged during a failover: 10 shared items, then 5 more added in each region and one
 * quantity changed concurrently.
 *
 * <p>Run: {@code mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests &&
 * java -jar benchmarks/jmh/target/benchmarks.jar CartMergeBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CartMergeBenchmark {

    private Cart cn;
    private Cart eu;

    /** Builds the two diverged carts. */
    @Setup
    public void diverge() {
        Cart shared = Cart.empty();
        for (int i = 0; i < 10; i++) {
            shared = shared.add("cn", "item-" + i, 1);
        }
        cn = shared;
        eu = shared;
        for (int i = 0; i < 5; i++) {
            cn = cn.add("cn", "cn-item-" + i, 1);
            eu = eu.add("eu", "eu-item-" + i, 2);
        }
        cn = cn.set("cn", "item-0", 4);
        eu = eu.set("eu", "item-0", 3);
    }

    /** One merge of the diverged states. */
    @Benchmark
    public Cart merge() {
        return cn.merge(eu);
    }
}
