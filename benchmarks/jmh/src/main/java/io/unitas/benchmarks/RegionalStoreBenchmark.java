package io.unitas.benchmarks;

import io.unitas.data.DataReadiness;
import io.unitas.data.HomeResolver;
import io.unitas.data.ReadinessResult;
import io.unitas.playground.replication.Replicator;
import io.unitas.playground.store.Account;
import io.unitas.playground.store.Cart;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.ShopData;
import io.unitas.playground.store.StoreDirectory;
import io.unitas.data.store.StoreResult;
import java.time.Clock;
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
 * The embedded regional stores (in-memory H2) on the paths a failover leans on: a cart update, shipping one
 * change from cn to eu with no injected delay, and a readiness check that must read from the home region.
 *
 * <p>Run: {@code mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests &&
 * java -jar benchmarks/jmh/target/benchmarks.jar RegionalStoreBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RegionalStoreBenchmark {

    private RegionalStore cn;
    private RegionalStore eu;
    private Replicator replicator;
    private DataReadiness<String, Account> readiness;
    private long users;

    /** Replication between the two regions run by hand, one user whose home is cn and who is only there. */
    @Setup
    public void open(TwoRegions regions) {
        cn = regions.cn;
        eu = regions.eu;
        replicator = Replicator.builder().stores(cn, eu).build();
        readiness = ShopData.of(TwoRegions.EU, StoreDirectory.of(cn, eu), HomeResolver.always(TwoRegions.CN),
                                Clock.systemUTC()).accounts();
        replicator.pause(TwoRegions.CN, TwoRegions.EU);
        cn.putAccount(new Account("alice", "u-cn", TwoRegions.CN, "Alice", Clock.systemUTC().instant()));
    }

    /** One item more in one cart: read, CRDT add, write and change-log append, in one transaction. */
    @Benchmark
    public StoreResult<Cart> updateCart() {
        return eu.updateCart("bruno", (c, replica) -> c.add(replica, "book", 1));
    }

    /** A registration in cn, then one replication round that ships it to eu and applies it. */
    @Benchmark
    public void registerInCnAndShipToEu() {
        cn.putAccount(new Account("user-" + users++, "u-cn", TwoRegions.CN, "User", Clock.systemUTC().instant()));
        replicator.resume(TwoRegions.CN, TwoRegions.EU);
        replicator.replicateDue();
        replicator.pause(TwoRegions.CN, TwoRegions.EU);
    }

    /** The account is not in eu yet: a local miss, then a read from its home cn (回源). */
    @Benchmark
    public ReadinessResult<Account> readinessReadingFromHome() {
        return readiness.read("alice");
    }
}
