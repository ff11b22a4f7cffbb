package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.unitas.core.crdt.PnCounter;
import io.unitas.core.crdt.Siblings;
import io.unitas.data.merge.OpenSiblings;
import io.unitas.spring.merged.MergedProfileApp;
import io.unitas.spring.merged.MergedProfileApp.Profiles;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two regions of a profile service, eu and us, as two application contexts with their own PostgreSQL databases, first
 * partitioned (each in an embedded group of its own: their changes wait in their outboxes) while both take writes of
 * one user, then healed (both restarted in one group). The starter's applier merges each arriving change by the
 * entity's declared policy: every acknowledged increment survives in both regions, and the two concurrent addresses
 * are kept as siblings in both, listed and a health reason, until an operator resolves them on record.
 */
class MergeReplicationTest {

    private String euDb;
    private String usDb;
    private ConfigurableApplicationContext eu;
    private ConfigurableApplicationContext us;

    @BeforeEach
    void databases() {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        euDb = "merge_eu_" + suffix;
        usDb = "merge_us_" + suffix;
        ReplicationTest.PG.execute("CREATE DATABASE " + euDb, "CREATE DATABASE " + usDb);
    }

    @AfterEach
    void stop() {
        close();
        ReplicationTest.PG.execute("DROP DATABASE IF EXISTS " + euDb + " WITH (FORCE)",
                                   "DROP DATABASE IF EXISTS " + usDb + " WITH (FORCE)");
    }

    private void close() {
        for (ConfigurableApplicationContext region : new ConfigurableApplicationContext[] {eu, us}) {
            if (region != null) {
                region.close();
            }
        }
        eu = null;
        us = null;
    }

    private static ConfigurableApplicationContext region(String region, String db, String group) {
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
                "--unitas.replication.ship-interval=20ms");
    }

    @Test
    void writesOfOneUserInBothRegionsDuringAPartition_mergeOnArrival_nothingAcknowledgedLost() throws Exception {
        String partitioned = "partition-" + UUID.randomUUID();
        eu = region("eu", euDb, partitioned + "-eu");
        us = region("us", usDb, partitioned + "-us");

        // user 50 is homed in eu; us took writes of them too (a failover window), both at once
        CompletableFuture<Void> inEu = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 10; i++) {
                profiles(eu).addPoints(points(eu), "50", 1);
            }
        });
        CompletableFuture<Void> inUs = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 7; i++) {
                profiles(us).addPoints(points(us), "50", 2);
            }
        });
        CompletableFuture.allOf(inEu, inUs).get();
        profiles(eu).setAddress(address(eu), "50", "1 Main St");
        profiles(us).setAddress(address(us), "50", "2 Rue Haute");
        assertThat(profiles(eu).pointsRow("50")).as("eu alone").contains(10L);
        assertThat(profiles(us).pointsRow("50")).as("us alone").contains(14L);
        assertThat(merge(eu).openSiblings()).as("nothing concurrent seen yet").isEmpty();

        close(); // the partition heals: both regions in one group
        String healed = "healed-" + UUID.randomUUID();
        eu = region("eu", euDb, healed);
        us = region("us", usDb, healed);

        for (ConfigurableApplicationContext region : List.of(eu, us)) {
            await().atMost(ReplicationTest.WAIT).untilAsserted(() -> {
                assertThat(merge(region).read("points", "50").map(s -> ((PnCounter) s).value())).contains(24L);
                assertThat(profiles(region).pointsRow("50")).as("materialized").contains(24L);
                List<OpenSiblings> open = merge(region).openSiblings();
                assertThat(open).extracting(OpenSiblings::type, OpenSiblings::key, OpenSiblings::unit,
                                            OpenSiblings::versions)
                                .containsExactly(org.assertj.core.groups.Tuple.tuple("address", "50", "u-eu", 2));
            });
            assertThat(merge(region).<Siblings<String>>read("address", "50").orElseThrow().values())
                    .containsExactlyInAnyOrder("1 Main St", "2 Rue Haute");
            org.springframework.boot.actuate.health.Health health =
                    region.getBean("unitasHealthIndicator", HealthIndicator.class).health();
            assertThat(health.getStatus().getCode()).as("a conflict is listed, the region still serves")
                                                    .isEqualTo("UP");
            assertThat(health.getDetails().get("reasons")).asString()
                    .contains("siblings: 1 entity in conflict in " + region.getEnvironment().getProperty(
                            "unitas.region") + ", oldest address 50 of unit u-eu");
        }

        SiblingsEndpoint endpoint = eu.getBean(SiblingsEndpoint.class);
        assertThat(((List<?>) endpoint.open().get("open"))).hasSize(1);
        WebEndpointResponse<Map<String, Object>> bad = endpoint.resolve("address", "50", 7, "ops@eu", "customer");
        assertThat(bad.getStatus()).isEqualTo(400);
        assertThat(bad.getBody().get("error")).asString().startsWith("choice: 7 (expected: 0 to 1");
        List<String> listed = merge(eu).<Siblings<String>>read("address", "50").orElseThrow().values();
        WebEndpointResponse<Map<String, Object>> done = endpoint.resolve("address", "50",
                                                                         listed.indexOf("2 Rue Haute"), "ops@eu",
                                                                         "the customer confirmed by phone");
        assertThat(done.getStatus()).isEqualTo(200);

        for (ConfigurableApplicationContext region : List.of(eu, us)) {
            await().atMost(ReplicationTest.WAIT).untilAsserted(() -> {
                assertThat(merge(region).openSiblings()).isEmpty();
                assertThat(merge(region).<Siblings<String>>read("address", "50").orElseThrow().values())
                        .containsExactly("2 Rue Haute");
            });
            assertThat(region.getBean("unitasHealthIndicator", HealthIndicator.class).health().getDetails())
                    .doesNotContainKey("reasons");
        }
        assertThat(merge(eu).resolutions("address", "50")).singleElement().satisfies(r -> {
            assertThat(r.who()).isEqualTo("ops@eu");
            assertThat(r.reason()).isEqualTo("the customer confirmed by phone");
        });
        assertThat(endpoint.resolve("address", "50", 0, "ops@eu", "again").getStatus()).isEqualTo(404);
    }

    @Test
    void concurrentIncrementsWhileConnected_convergeToEverySum() throws Exception {
        String group = "connected-" + UUID.randomUUID();
        eu = region("eu", euDb, group);
        us = region("us", usDb, group);

        List<CompletableFuture<Void>> writers = new ArrayList<>();
        for (ConfigurableApplicationContext region : List.of(eu, us)) {
            writers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 25; i++) {
                    profiles(region).addPoints(points(region), "51", 1);
                }
            }));
        }
        CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get();

        for (ConfigurableApplicationContext region : List.of(eu, us)) {
            await().atMost(ReplicationTest.WAIT).untilAsserted(
                    () -> assertThat(profiles(region).pointsRow("51")).contains(50L));
        }
    }

    private static Profiles profiles(ConfigurableApplicationContext region) {
        return region.getBean(Profiles.class);
    }

    private static UnitasMerge merge(ConfigurableApplicationContext region) {
        return region.getBean(UnitasMerge.class);
    }

    @SuppressWarnings("unchecked")
    private static UnitasEntity<PnCounter> points(ConfigurableApplicationContext region) {
        return region.getBean("pointsEntity", UnitasEntity.class);
    }

    @SuppressWarnings("unchecked")
    private static UnitasEntity<Siblings<String>> address(ConfigurableApplicationContext region) {
        return region.getBean("addressEntity", UnitasEntity.class);
    }
}
