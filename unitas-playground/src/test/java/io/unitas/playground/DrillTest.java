package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.testkit.Ports;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The whole playground in this JVM (control plane; per region a gateway, health agent, two shops, a store) and the
 * drills against it, shortened: with unitas every scenario keeps every invariant; the seed's setup (process-only
 * checks, a DNS switch after a TTL, local reads, region-local idempotency) shows the seed's failures.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DrillTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    /** Long enough for the longest failover promise (5.5 s) inside the fault window (40% of the drill), with room. */
    private static final Duration DRILL = Duration.ofSeconds(17);
    /**
     * The seed's failures need retried checkouts to land during the fault: more time for them to happen (at 20 s a
     * run at a load average of 50 saw no double order).
     */
    private static final Duration NAIVE_DRILL = Duration.ofSeconds(25);
    /**
     * Above this load average per core the health pipeline's timers run seconds late: on 2 cores the promise held
     * up to a load average of 50 (db-readonly 4.2 s against 5 s) and was missed at about 60 (9.9 s).
     */
    private static final double STARVED_LOAD_PER_CORE = 20;
    private final ShopClient client = new ShopClient(Duration.ofSeconds(5));
    private final List<String> starved = new java.util.ArrayList<>();
    /** The last drill's progress lines. */
    private static final List<String> progress = new java.util.concurrent.CopyOnWriteArrayList<>();
    private Playground unitas;

    @BeforeAll
    void start() {
        unitas = Playground.builder().portsFrom(Ports.range(50)).start();
        unitas.awaitReady(Duration.ofSeconds(90));
    }

    @AfterAll
    void stop() {
        unitas.close();
    }

    private static DrillResult drill(Playground playground, Scenario scenario, boolean naive) {
        playground.awaitReady(Duration.ofSeconds(120));
        progress.clear();
        Drill.Builder drill = Drill.builder().scenario(scenario).naive(naive).duration(naive ? NAIVE_DRILL : DRILL)
                                   .users(6)
                                   .progress(line -> {
                                       System.out.println(line);
                                       progress.add(line);
                                   });
        if (naive) {
            // The seed's failures need many requests in a short drill, at a pace that is not the machine's: unpaced,
            // a fast machine registers so many users that those with a lost checkout to resend after the failover
            // are all too new to have reached the other regions, and no order is charged twice.
            drill.visitEvery(Duration.ofMillis(50));
        }
        DrillResult result = drill.build().run(playground);
        System.out.print(DrillTable.of(List.of(result)));
        return result;
    }

    @Test
    void a_user_registered_through_one_gateway_is_served_at_home_through_any_gateway() {
        String user = unitas.userId(CN, 11);
        ShopClient.Reply register = client.register(unitas.gateway(EU), user);
        assertThat(register.status()).isEqualTo(201);
        assertThat(register.servedBy()).isEqualTo("cn");

        ShopClient.Reply login = client.login(unitas.gateway(CN), user);

        assertThat(login.status()).isEqualTo(200);
        assertThat(login.servedBy()).isEqualTo("cn");
    }

    @Test
    void every_scenario_under_unitas_keeps_every_invariant_and_moves_cn_users_elsewhere_when_cn_cannot_serve() {
        for (Scenario scenario : Scenario.values()) {
            if (scenario.processesOnly()) {
                continue; // the network between processes: ProcessDrill's, on a process deployment
            }
            DrillResult r = drill(unitas, scenario, false);

            assertThat(r.accountNotFound()).as(scenario.id()).isZero();
            assertThat(r.duplicateOrders()).as(scenario.id()).isZero();
            // every duplicate reconciliation detected (an order on both sides of a promotion) was refunded
            assertThat(r.reconciled().compensated()).as(scenario.id() + " compensated")
                                                     .isEqualTo(r.reconciled().duplicatesDetected());
            assertThat(r.lostCartItems()).as(scenario.id()).isZero();
            assertThat(r.requests()).as(scenario.id()).isGreaterThan(30);
            if (scenario == Scenario.DNS_DOWN) {
                // Clients kept their answers, then went on through the fallback pool the playground wrote.
                assertThat(progress).as("dns-down: picks from the fallback pool")
                                    .anyMatch(line -> line.matches(".*, [1-9][0-9]* from the fallback pool"));
            }
            if (scenario == Scenario.CONTROL_PLANE_DOWN) {
                // Gateways kept routing on their last state, and the control plane's return costs nothing: it once
                // expired every region at its first tick and every user was answered 503 until the drill's end.
                assertThat(r.failedInFault()).as("control-plane-down: failed in fault").isZero();
                assertThat(r.window().failedAfter()).as("control-plane-down: failed after recovery").isZero();
            }
            if (scenario.movesTraffic()) {
                assertThat(r.failoverMillis()).as(scenario.id() + " failover").isNotNegative();
                // What the playground's health settings promise (docs/playground.md, "Failover"), on the drill's
                // own clock: from the fault to the first cn user served elsewhere. A machine with far more
                // runnable threads than cores delays the checks and pushes the promise is made of; there the
                // bound is not checked, and the test is aborted (reported as skipped) with what it measured.
                double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
                int cores = Runtime.getRuntime().availableProcessors();
                if (load <= STARVED_LOAD_PER_CORE * cores) {
                    assertThat(r.failoverMillis()).as(scenario.id() + " failover at a load average of " + load)
                                                  .isBetween(0L, unitas.failoverPromise(scenario).toMillis());
                } else {
                    starved.add(scenario.id() + " failover " + r.failoverMillis() + " ms at a load average of "
                                + load + " on " + cores + " cores");
                }
            }
        }
        Assumptions.assumeTrue(starved.isEmpty(), () -> "invariants held; failover promise not checked on a "
                                                        + "starved machine: " + starved);
    }

    /**
     * The example service pair (examples/order-inventory) under the seed's incident: orders entering at another
     * region's gateway, the inventory called from an @Async method; while cn's unit fails over to eu and back, no
     * call of the pair is served outside the region its unit is routed to. A playground of its own, so that the
     * other drills run without the pair's Spring contexts.
     */
    @Test
    void the_example_services_calls_follow_their_unit_through_a_failover_and_none_goes_to_the_wrong_region() {
        try (Playground withExample = Playground.builder().portsFrom(Ports.range(50)).example(true).start()) {
            DrillResult r = drill(withExample, Scenario.DB_READONLY, false);

            assertThat(r.example().crossUnit()).as("example calls with a unit").isPositive();
            assertThat(r.example().wrongRegion()).as("example calls served outside their unit's region").isZero();
            assertThat(r.accountNotFound()).isZero();
            assertThat(r.duplicateOrders()).isZero();
            assertThat(r.lostCartItems()).isZero();
        }
    }

    @Test
    void the_seeds_setup_loses_accounts_and_charges_twice_when_cn_turns_read_only_or_fails_behind_a_backlog() {
        try (Playground naive = Playground.builder().portsFrom(Ports.range(50)).mode(ShopMode.NAIVE).start()) {
            for (Scenario scenario : List.of(Scenario.DB_READONLY, Scenario.REPLICATION_BACKLOG)) {
                DrillResult r = drill(naive, scenario, true);

                assertThat(r.holds()).as(scenario.id()).isFalse();
                assertThat(r.accountNotFound()).as(scenario.id()).isPositive();
                assertThat(r.duplicateOrders()).as(scenario.id()).isPositive();
            }
        }
    }

    @Test
    void a_naive_drill_needs_naive_shops() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> Drill.builder().scenario(Scenario.DB_READONLY).naive(true).build().run(unitas))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("playground runs UNITAS shops (expected: NAIVE for a naive drill)");
    }
}
