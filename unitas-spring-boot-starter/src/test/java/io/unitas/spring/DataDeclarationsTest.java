package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;

import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.PnCounter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Mistakes in what an entity declares for the data layer (its merge policy, its staleness budget) and in
 * {@code unitas.cache.*}: one line each, naming the entity or property and what was expected.
 */
class DataDeclarationsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(StarterAutoConfigurations.all())
            .withPropertyValues("unitas.region=eu", "unitas.topology=classpath:unitas/topology.yaml",
                                "unitas.rules=classpath:unitas/rules.yaml");

    @Test
    void theCacheWithoutKafka_andBadSizes_areNamedAtOnce() {
        runner.withPropertyValues("unitas.cache.directory=/tmp/never-created", "unitas.cache.maximum-size=-1",
                                  "unitas.cache.ttl=0s", "unitas.cache.kafka.partitions=0")
              .run(context -> {
                  assertThat(context).hasFailed();
                  FailureAnalysis analysis = new UnitasFailureAnalyzer().analyze(context.getStartupFailure());
                  assertThat(analysis).isNotNull();
                  assertThat(analysis.getDescription()).contains(
                          "unitas.cache.kafka.bootstrap-servers: missing (expected: host:port[,host:port...], or"
                          + " unitas.replication.kafka.bootstrap-servers)",
                          "unitas.cache.maximum-size: -1 (expected: >= 0)",
                          "unitas.cache.ttl: PT0S (expected: > 0)",
                          "unitas.cache.kafka.partitions: 0 (expected: >= 1)");
              });
    }

    @Test
    void replicationAskedFor_withoutSpringJdbcOnTheClassPath_stopsTheStartNamingWhatIsMissing() {
        // it used to start with replication silently off: the replication auto-configuration needs Spring's JDBC
        runner.withClassLoader(new FilteredClassLoader("org.springframework.jdbc"))
              .withPropertyValues("unitas.replication.transport=embedded")
              .run(context -> {
                  assertThat(context).hasFailed();
                  FailureAnalysis analysis = new UnitasFailureAnalyzer().analyze(context.getStartupFailure());
                  assertThat(analysis).isNotNull();
                  assertThat(analysis.getDescription()).contains(
                          "unitas.replication.transport: 'embedded' needs spring-jdbc on the class path"
                          + " (missing: org.springframework.jdbc.datasource.DataSourceUtils; add"
                          + " spring-boot-starter-jdbc)");
              });
    }

    @Test
    void withoutTheCacheDirectory_noCacheManagerIsMade() {
        runner.run(context -> assertThat(context).doesNotHaveBean(UnitasCaches.class));
    }

    @Test
    void anEntitysDeclaration_isCheckedWhereItIsMade() {
        assertThatThrownBy(() -> UnitasEntity.<PnCounter>builder("points", k -> Optional.empty())
                .codec(c -> new byte[0], b -> PnCounter.zero())
                .materializedBy((tx, key, state) -> { })
                .build())
                .isInstanceOf(UnitasConfigurationException.class)
                .hasMessageContaining("UnitasEntity 'points': materializedBy without a merge policy (expected:"
                                      + " mergePolicy(...) as well)");
        assertThatThrownBy(() -> UnitasEntity.<PnCounter>builder("points", k -> Optional.empty())
                .stalenessBudget(Duration.ofSeconds(-1)))
                .isInstanceOf(UnitasConfigurationException.class)
                .hasMessageContaining("UnitasEntity 'points': staleness budget PT-1S (expected: > 0)");

        UnitasEntity<PnCounter> points = UnitasEntity.<PnCounter>builder("points", k -> Optional.empty())
                .codec(c -> new byte[0], b -> PnCounter.zero())
                .mergePolicy(MergePolicy.counter())
                .stalenessBudget(Duration.ofSeconds(5))
                .build();
        assertThat(points.mergePolicy()).isPresent();
        assertThat(points.stalenessBudget()).contains(Duration.ofSeconds(5));
    }
}
