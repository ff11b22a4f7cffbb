package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code unitas.consistency.declarations}: the contract file that {@code unitas check consistency} checks is where a
 * service's entities take their staleness budgets from, so the budget CI passed is the one the service meters, gates
 * and caches by; a bean that says otherwise stops the start, naming the file's line and the bean.
 */
class ConsistencyDeclarationsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(StarterAutoConfigurations.all())
            .withPropertyValues("unitas.region=eu", "unitas.topology=classpath:unitas/topology.yaml",
                                "unitas.rules=classpath:unitas/rules.yaml");

    private static UnitasEntity<String> entity(String type, Duration budget) {
        UnitasEntity.Builder<String> b = UnitasEntity.<String>builder(type, key -> Optional.empty())
                .codec(s -> s.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                       bytes -> new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
        return (budget == null ? b : b.stalenessBudget(budget)).build();
    }

    private static String analysed(Throwable failure) {
        FailureAnalysis analysis = new UnitasFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("analysis of %s", failure).isNotNull();
        return analysis.getDescription();
    }

    @Test
    void theFilesBudget_isTheEntitysBudget() {
        runner.withPropertyValues("unitas.consistency.declarations=classpath:unitas/consistency.yaml")
              .withBean("pricesEntity", UnitasEntity.class, () -> entity("prices", null))
              .withBean("cartEntity", UnitasEntity.class, () -> entity("cart", Duration.ofSeconds(9)))
              .run(context -> {
                  assertThat(context).hasNotFailed();
                  assertThat(context.getBean(UnitasBudgets.class).byType()).containsExactlyInAnyOrderEntriesOf(
                          Map.of("prices", Duration.ofSeconds(2), "cart", Duration.ofSeconds(9)));
              });
    }

    @Test
    void withoutAFile_theBeansBudgetsStand() {
        runner.withBean("cartEntity", UnitasEntity.class, () -> entity("cart", Duration.ofMillis(500)))
              .run(context -> assertThat(context.getBean(UnitasBudgets.class).byType())
                      .containsExactlyEntriesOf(Map.of("cart", Duration.ofMillis(500))));
    }

    @Test
    void aBeanThatDisagreesWithTheFile_stopsTheStart_namingBoth() {
        runner.withPropertyValues("unitas.consistency.declarations=classpath:unitas/consistency.yaml")
              .withBean("pricesEntity", UnitasEntity.class, () -> entity("prices", Duration.ofSeconds(5)))
              .withBean("walletEntity", UnitasEntity.class, () -> entity("wallet", Duration.ofSeconds(1)))
              .run(context -> {
                  assertThat(context).hasFailed();
                  assertThat(analysed(context.getStartupFailure())).contains(
                          "classpath:unitas/consistency.yaml:5: entities.prices.staleness_budget: 2s, but the "
                          + "UnitasEntity bean 'prices' declares stalenessBudget(5s) (expected: one budget; declare "
                          + "it in one place)",
                          "classpath:unitas/consistency.yaml:8: entities.wallet.consistency: wallet is strong, but its "
                          + "UnitasEntity bean declares stalenessBudget(1s) (expected: one declaration; remove the "
                          + "bean's budget or make the file bounded-staleness)");
              });
    }

    @Test
    void aMissingOrWrongFile_stopsTheStart_namingThePropertyOrTheLine(@TempDir Path dir) throws Exception {
        runner.withPropertyValues("unitas.consistency.declarations=classpath:unitas/nowhere.yaml")
              .run(context -> assertThat(analysed(context.getStartupFailure())).contains(
                      "unitas.consistency.declarations: 'classpath:unitas/nowhere.yaml' (expected: an existing file,"
                      + " as a classpath: or file: location)"));
        Path wrong = Files.writeString(dir.resolve("consistency.yaml"), """
                entities:
                  prices:
                    consistency: bounded-staleness
                    staleness_budget: soon
                """);
        runner.withPropertyValues("unitas.consistency.declarations=file:" + wrong)
              .run(context -> assertThat(analysed(context.getStartupFailure()))
                      .contains("consistency.yaml:4: entities.prices.staleness_budget: ")
                      .doesNotContain("Exception"));
    }
}
