package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.crdt.PnCounter;
import io.unitas.testkit.Ports;
import io.unitas.spring.merged.MergedProfileApp;
import io.unitas.spring.merged.MergedProfileApp.Profiles;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.validation.BeanPropertyBindingResult;

/**
 * The starter's reconciliation ({@code unitas.reconciliation.*}): two regions of the merged profile service, each
 * with its own PostgreSQL database and home-read server; drift injected into eu's copy of a user homed in us is
 * repaired from us's copy, read over the network, within the window, and the pass is on record. A pass that throws
 * leaves the schedule running; a window that is not positive is one line naming the property.
 */
class ReconciliationTest {

    private static final String TOKEN = "between-regions-" + UUID.randomUUID();

    @Test
    void driftInACopy_isRepairedFromTheHomeOverTheNetwork_withinTheWindow() throws Exception {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        String euDb = "reconcile_eu_" + suffix;
        String usDb = "reconcile_us_" + suffix;
        ReplicationTest.PG.execute("CREATE DATABASE " + euDb, "CREATE DATABASE " + usDb);
        int euReads = Ports.free();
        int usReads = Ports.free();
        String group = "reconcile-" + suffix;
        ConfigurableApplicationContext us = null;
        ConfigurableApplicationContext eu = null;
        try {
            us = region("us", usDb, group, usReads, "eu", euReads);
            eu = region("eu", euDb, group, euReads, "us", usReads);
            Profiles inUs = us.getBean(Profiles.class);
            for (int i = 0; i < 5; i++) {
                inUs.addPoints(points(us), "80", 1); // user 80: unit u-us, homed in us
            }
            ConfigurableApplicationContext euRegion = eu;
            await().atMost(ReplicationTest.WAIT).untilAsserted(
                    () -> assertThat(euRegion.getBean(Profiles.class).pointsRow("80")).contains(5L));

            // behind the applier's back: eu loses its copy of user 80's points
            sql(eu, "DELETE FROM unitas_merge_state WHERE entity_type = 'points' AND entity_key = '80'");
            sql(eu, "UPDATE points SET n = 0 WHERE user_id = '80'");

            await().atMost(ReplicationTest.WAIT).untilAsserted(() -> {
                assertThat(euRegion.getBean(UnitasMerge.class).read("points", "80")
                                   .map(s -> ((PnCounter) s).value())).contains(5L);
                assertThat(euRegion.getBean(Profiles.class).pointsRow("80")).as("through the merge path")
                                                                           .contains(5L);
                assertThat(euRegion.getBean(MeterRegistry.class).get("unitas.data.reconcile.digest.keys")
                                   .tag("type", "points").tag("action", "ADOPT").counter().count()).isEqualTo(1);
                assertThat(pass(euRegion, "u-us")).as("unit, home, failure").isEqualTo("u-us us null");
            });
            assertThat(pass(euRegion, "u-cn")).as("no endpoint for cn: not reconciled").isEmpty();
            assertThat(euRegion.getBean("unitasHealthIndicator", HealthIndicator.class).health().getDetails()
                               .get("reasons")).asString()
                    .contains("reconciliation: units [u-cn] of region cn not reconciled (expected: "
                              + "unitas.readiness.home-reads.endpoints.cn)");
        } finally {
            for (ConfigurableApplicationContext region : new ConfigurableApplicationContext[] {eu, us}) {
                if (region != null) {
                    region.close();
                }
            }
            ReplicationTest.PG.execute("DROP DATABASE IF EXISTS " + euDb + " WITH (FORCE)",
                                       "DROP DATABASE IF EXISTS " + usDb + " WITH (FORCE)");
        }
    }

    @Test
    void aPassThatThrows_isKeptAsTheLastError_andTheScheduleGoesOn() {
        AtomicInteger passes = new AtomicInteger();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (ReconciliationSchedule schedule = new ReconciliationSchedule(() -> {
            int n = passes.incrementAndGet();
            if (n == 1) {
                throw new IllegalStateException("home cn unreachable");
            }
            if (n == 2) {
                throw new LinkageError("a class went missing"); // an Error, too, must not end the schedule
            }
        }, Duration.ofMillis(10), meters)) {
            schedule.runOnce();
            assertThat(schedule.lastError()).contains("IllegalStateException: home cn unreachable");
            schedule.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> passes.get() >= 4);
            assertThat(schedule.running()).isTrue();
            assertThat(schedule.lastError()).as("cleared by a pass that succeeded").isEmpty();
            assertThat(meters.get("unitas.reconciliation.pass.errors").counter().count()).isEqualTo(2);
        }
    }

    @Test
    void aWindowThatIsNotPositive_isOneLineNamingTheProperty() {
        UnitasProperties properties = new UnitasProperties();
        properties.setRegion("eu");
        properties.setTopology("classpath:unitas/topology.yaml");
        properties.setRules("classpath:unitas/rules.yaml");
        properties.getReconciliation().setWindow(Duration.ZERO);
        BeanPropertyBindingResult errors = new BeanPropertyBindingResult(properties, "unitas");

        properties.validate(properties, errors);

        assertThat(errors.getFieldErrors()).singleElement().satisfies(e -> assertThat(
                "unitas." + UnitasFailureAnalyzer.kebab(e.getField()) + ": " + e.getDefaultMessage())
                .isEqualTo("unitas.reconciliation.window: 'PT0S' (expected: a positive duration, e.g. 10s)"));
    }

    @Test
    void enabledWithoutHomeReadEndpoints_stopsTheStartWithOneLineNamingTheProperty() {
        UnitasProperties properties = new UnitasProperties();
        properties.setRegion("eu");
        properties.getReconciliation().setEnabled(true);
        UnitasReconciliation reconciliation = new UnitasReconciliation(properties, null, null, () -> null,
                                                                       new SimpleMeterRegistry(), null);

        assertThatThrownBy(reconciliation::start).isInstanceOf(UnitasConfigurationException.class)
                .extracting(e -> ((UnitasConfigurationException) e).problems()).asList()
                .containsExactly("unitas.reconciliation.enabled: true, but no unitas.readiness.home-reads.endpoints to"
                                 + " read the homes' copies from (expected: merged entities, home-read endpoints and"
                                 + " PostgreSQL, or enabled: false)");
        assertThat(reconciliation.isRunning()).isFalse();
        properties.getReconciliation().setEnabled(null);
        reconciliation.start();
        assertThat(reconciliation.isRunning()).as("by default, off without endpoints").isFalse();
        assertThat(reconciliation.reasons()).isEmpty();
    }

    private static ConfigurableApplicationContext region(String region, String db, String group, int readPort,
                                                         String peer, int peerPort) {
        return new SpringApplicationBuilder(MergedProfileApp.class).run(
                "--spring.autoconfigure.exclude=",
                "--spring.main.web-application-type=none",
                "--spring.datasource.url=jdbc:postgresql://127.0.0.1:" + ReplicationTest.PG.port() + "/" + db,
                "--spring.datasource.username=" + ReplicationTest.PG.admin().getProperty("user"),
                "--spring.datasource.password=" + ReplicationTest.PG.admin().getProperty("password", ""),
                "--spring.datasource.hikari.maximum-pool-size=6",
                "--unitas.region=" + region,
                "--unitas.replication.transport=embedded",
                "--unitas.replication.embedded.group=" + group,
                "--unitas.replication.regions=eu,us",
                "--unitas.replication.ship-interval=20ms",
                "--unitas.readiness.home-reads.token=" + TOKEN,
                "--unitas.readiness.home-reads.server.port=" + readPort,
                "--unitas.readiness.home-reads.endpoints." + peer + "=http://127.0.0.1:" + peerPort,
                "--unitas.readiness.home-reads.timeout=20s", // a loaded machine; this test is not about timing
                "--unitas.reconciliation.window=500ms");
    }

    /** The unit's last pass on record: unit, home and failure; empty when none. */
    private static String pass(ConfigurableApplicationContext region, String unit) throws Exception {
        try (Connection c = region.getBean(DataSource.class).getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT unit, home, failure"
                                                       + " FROM unitas_reconcile_passes WHERE unit = ?")) {
            ps.setString(1, unit);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3) : "";
            }
        }
    }

    private static void sql(ConfigurableApplicationContext region, String statement) throws Exception {
        try (Connection c = region.getBean(DataSource.class).getConnection()) {
            c.createStatement().execute(statement);
        }
    }

    @SuppressWarnings("unchecked")
    private static UnitasEntity<PnCounter> points(ConfigurableApplicationContext region) {
        return region.getBean("pointsEntity", UnitasEntity.class);
    }
}
