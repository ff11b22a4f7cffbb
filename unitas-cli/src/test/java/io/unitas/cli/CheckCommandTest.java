package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code unitas check consistency}: one fixture per rule, each breaking exactly that rule at a known file and line; a
 * clean fixture; bad input with every problem at once; the OpenAPI form; the exit codes.
 */
class CheckCommandTest {

    private static final String DIR = "src/test/resources/consistency/";
    private static final String TOPOLOGY = DIR + "topology.yaml";
    private static final String RULES = DIR + "rules.yaml";
    private static final String LAG = DIR + "lag.yaml";

    private static Cli check(String... more) {
        List<String> args = new ArrayList<>(List.of("check", "consistency", "--topology", TOPOLOGY,
                                                    "--rules", RULES));
        args.addAll(List.of(more));
        return Cli.run(args.toArray(new String[0]));
    }

    @ParameterizedTest(name = "{0} breaks exactly {0} at {1}:{2}")
    @CsvSource({
            "money-strong,         money-strong.yaml,         4, entities.payments.consistency",
            "money-one-writer,     money-one-writer.yaml,     6, entities.ledger.writes",
            "eventual-converges,   eventual-converges.yaml,   4, entities.sessions.consistency",
            "multi-writer-merge,   multi-writer-merge.yaml,   5, entities.profiles.writes",
            "staleness-budget,     staleness-budget.yaml,     5, entities.recommendations.staleness_budget",
            "shared-writes-center, shared-writes-center.yaml, 5, services.prices.writes",
            "global-in-center,     global-in-center.yaml,     5, services.catalog.region",
            "residency-home,       residency-home.yaml,       4, units.u-shanghai",
            "residency-fallback,   topology.yaml,             4, fallback.eu[0]",
    })
    void eachRule_hasAFixtureThatBreaksOnlyIt(String rule, String file, int line, String path) {
        Cli run = check("--declarations", DIR + rule + ".yaml", "--lag", LAG);
        assertThat(run.exit()).as(run.toString()).isEqualTo(1);
        assertThat(run.err()).isEmpty();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith(DIR + file + ":" + line + ": " + path + ": ")
                                .endsWith(" [" + rule + "]");
        assertThat(lines.get(1)).startsWith("1 violation of " + rule + " in ");
    }

    @Test
    void staleness_messageNamesTheMeasurement() {
        Cli run = check("--declarations", DIR + "staleness-budget.yaml", "--lag", LAG);
        assertThat(run.out()).contains("recommendations promises reads at most 500 ms stale, but unit u-paris from "
                                       + "eu to us lags 800 ms (expected: a budget of at least 800 ms)");
    }

    @Test
    void residencyFallback_namesTheUnitAndWhereItsGroupIsDeclared() {
        Cli run = check("--declarations", DIR + "residency-fallback.yaml");
        assertThat(run.out().lines().findFirst().orElseThrow()).isEqualTo(
                TOPOLOGY + ":4: fallback.eu[0]: fallback of eu lists eu2: failover, spillover or promotion could place "
                + "unit u-paris (france-only, declared at " + DIR + "residency-fallback.yaml:5: units.u-paris) "
                + "outside france-only: [eu] [residency-fallback]");
    }

    @Test
    void clean_exits0_withASummary() {
        Cli run = check("--declarations", DIR + "clean.yaml", "--lag", LAG);
        assertThat(run).isEqualTo(new Cli(0, "ok: no violations in 6 declarations, 1 residency group, 2 units with "
                + "residency; largest measured lag 800 ms (unit u-paris from eu to us)\n", ""));
    }

    @Test
    void withoutLag_saysTheBudgetsWereNotChecked() {
        Cli run = check("--declarations", DIR + "staleness-budget.yaml");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).endsWith("; staleness budgets not checked (no --lag or --control)\n");
    }

    @Test
    void severalFiles_areOneContract_everyViolationListed() {
        Cli run = check("--declarations", DIR + "money-strong.yaml", "--declarations", DIR + "global-in-center.yaml");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.out().lines().toList()).hasSize(3).last().asString()
                .startsWith("2 violations of money-strong, global-in-center in 2 declarations");
    }

    @Test
    void badInput_everyProblemAtOnce_exit2() {
        Cli run = check("--declarations", DIR + "bad.yaml");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        String f = DIR + "bad.yaml";
        assertThat(run.err().lines().toList()).containsExactly(
                f + ":2: residency.eu-personal-data: \"eu\" (expected: a list of at least one region id)",
                f + ":5: entities.payments.consistency: 'strongest' (expected: strong, bounded-staleness or eventual)",
                f + ":6: entities.payments.money_or_legal: \"yes\" (expected: true or false)",
                f + ":9: entities.cart.merge: 'last-write' (expected: lww, pn-counter, or-set, or-map or siblings)",
                f + ":10: entities.cart.staleness_budget: given with eventual (expected: only with bounded-staleness)",
                f + ":11: entities.prices: staleness_budget missing (expected: with bounded-staleness, how stale a "
                + "read may be, like 500ms or 5s)",
                f + ":14: entities.catalog.kind: 'central' (expected: core, global or shared)",
                f + ":16: entities.catalog.region: given for a non-global service (expected: only with kind global; "
                + "core and shared services run in every region)",
                f + ":17: entities.catalog.colour: unknown key (expected one of: kind, consistency, staleness_budget, "
                + "money_or_legal, idempotent, merge, writes, region, residency)");
    }

    @Test
    void badReferences_everyProblemAtOnce_exit2() {
        Cli run = check("--declarations", DIR + "bad-references.yaml");
        assertThat(run.exit()).isEqualTo(2);
        String f = DIR + "bad-references.yaml";
        assertThat(run.err().lines().toList()).containsExactly(
                f + ":9: entities.cart.residency: unknown residency group 'us-personal-data' (expected: one of "
                + "eu-personal-data)",
                f + ":2: residency.eu-personal-data[1]: unknown region 'mars' (expected one of: cn, eu, eu2, us)",
                f + ":4: units.u-atlantis: unknown unit 'u-atlantis' (expected one of: u-berlin, u-newyork, u-paris, "
                + "u-shanghai)");
    }

    @Test
    void badInputAcrossFiles_isReportedTogether() {
        Cli run = check("--declarations", DIR + "bad.yaml", "--lag", DIR + "rules.yaml");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains(DIR + "bad.yaml:5:").contains(DIR + "rules.yaml:1: units: not a mapping");
    }

    @Test
    void openApi_operationsAndSchemas_declareWithExtensions() {
        Cli run = check("--declarations", DIR + "openapi.yaml", "--lag", LAG);
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.out().lines().toList()).containsExactly(
                DIR + "openapi.yaml:20: paths./refunds.post.x-consistency-level: refund handles money or legal records "
                + "but is bounded-staleness (expected: strong) [money-strong]",
                DIR + "openapi.yaml:21: paths./refunds.post.x-staleness-budget: refund promises reads at most 500 ms "
                + "stale, but unit u-paris from eu to us lags 800 ms (expected: a budget of at least 800 ms) "
                + "[staleness-budget]",
                "2 violations of money-strong, staleness-budget in 4 declarations, 1 residency group, 0 units with "
                + "residency; largest measured lag 800 ms (unit u-paris from eu to us)");
    }

    @Test
    void thePlaygroundsOwnDeclarations_pass() {
        java.nio.file.Path root = Cli.root();
        Cli run = Cli.run("check", "consistency",
                          "--declarations", root.resolve("examples/consistency.yaml").toString(),
                          "--topology", root.resolve("examples/topology.yaml").toString(),
                          "--rules", root.resolve("examples/rules.yaml").toString());
        assertThat(run).isEqualTo(new Cli(0, "ok: no violations in 6 declarations, 0 residency groups, 0 units with "
                + "residency; staleness budgets not checked (no --lag or --control)\n", ""));
    }

    @Test
    void help_exits0_andListsTheExitCodes() {
        Cli run = Cli.run("check", "consistency", "--help");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("--declarations=FILE").contains("--lag=FILE").contains("--control=URL")
                             .contains("1   violations, one per line");
    }

    @Test
    void missingOption_exit2() {
        assertThat(Cli.run("check", "consistency", "--topology", TOPOLOGY, "--rules", RULES).exit()).isEqualTo(2);
    }

    @Test
    void missingFile_exit2_namingIt() {
        Cli run = check("--declarations", DIR + "nope.yaml");
        assertThat(run).isEqualTo(new Cli(2, "", DIR + "nope.yaml: no such file\n"));
    }
}
