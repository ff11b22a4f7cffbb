package io.unitas.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each library module's promised surface ({@link PublicApi}) equals the baseline recorded in
 * {@code MODULE/api/MODULE.api}, so that a change to it, an addition as much as a removal, is a decision taken in
 * the same commit: a difference fails, listing each line removed and added, with the command that records the new
 * surface when the change is meant ({@link #RECORD}).
 */
class PublicApiTest {

    static final String RECORD = "mvn -B -ntp -o -q -pl unitas-api-test -am test -Dtest=PublicApiTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true -Dopenapi.lint.skip -Dapi.record";

    static Path baseline(String module) {
        return Modules.dir(module).resolve("api/" + module + ".api");
    }

    @TestFactory
    Stream<DynamicTest> everyLibrary_keepsItsRecordedSurface() {
        boolean record = System.getProperty("api.record") != null;
        return Modules.LIBRARIES.stream().map(module -> DynamicTest.dynamicTest(module, () -> {
            List<String> now = PublicApi.of(Modules.mainClasses(module));
            if (record) {
                Files.createDirectories(baseline(module).getParent());
                Files.write(baseline(module), now);
            }
            check(module, baseline(module), now);
        }));
    }

    /** Fails when {@code now} differs from the lines of {@code baseline}, naming each member removed or added. */
    static void check(String module, Path baseline, List<String> now) throws IOException {
        if (!Files.exists(baseline)) {
            throw new AssertionError(module + ": no recorded surface (" + Modules.ROOT.relativize(baseline)
                                     + "); record it with\n  " + RECORD);
        }
        String diff = diff(Files.readAllLines(baseline), now);
        if (!diff.isEmpty()) {
            throw new AssertionError(module + ": the public API differs from "
                                     + Modules.ROOT.relativize(baseline) + " (- recorded, + now):\n" + diff
                                     + "If the change is meant, record it and commit the file with the change:\n  "
                                     + RECORD);
        }
    }

    /**
     * The lines only one side has, each under the type it belongs to: {@code - } recorded but gone (removed or
     * changed: a break for users), {@code + } new. Empty when both are equal.
     */
    static String diff(List<String> recorded, List<String> now) {
        StringBuilder out = new StringBuilder();
        appendMissing(out, "- ", recorded, now);
        appendMissing(out, "+ ", now, recorded);
        return out.toString();
    }

    private static void appendMissing(StringBuilder out, String sign, List<String> from, List<String> other) {
        Set<String> others = new HashSet<>(other);
        String type = null;
        for (String line : from) {
            if (!line.startsWith(" ")) {
                type = line;
            }
            if (!others.contains(line)) {
                out.append(sign).append(line.startsWith(" ") ? type + " :: " + line.strip() : line).append('\n');
            }
        }
    }

    @Test
    void aRemovedOrChangedMember_failsNamingIt_andSaysHowToRecord(@TempDir Path dir)
            throws IOException {
        List<String> now = PublicApi.of(Modules.mainClasses("unitas-config"));
        String parse = "  public static io.unitas.core.Topology read(java.nio.file.Path)";
        assertThat(now).contains("public final class io.unitas.config.TopologyFile", parse);

        // the code as a commit would leave it: read(Path) gone, and write(Topology) new
        List<String> changed = new ArrayList<>(now);
        changed.set(changed.indexOf(parse), "  public static void write(io.unitas.core.Topology)");
        Path recorded = Files.write(dir.resolve("unitas-config.api"), now);

        assertThatThrownBy(() -> check("unitas-config", recorded, changed))
                .hasMessageContaining("- public final class io.unitas.config.TopologyFile :: public static "
                                      + "io.unitas.core.Topology read(java.nio.file.Path)")
                .hasMessageContaining("+ public final class io.unitas.config.TopologyFile :: public static void "
                                      + "write(io.unitas.core.Topology)")
                .hasMessageContaining(RECORD);
    }

    @Test
    void aChangedSignature_isAChange_evenWhereOnlyTheGenericsDiffer() {
        List<String> now = PublicApi.of(Modules.mainClasses("unitas-config"));
        String problems = now.stream().filter(l -> l.contains(" problems()")).findFirst().orElseThrow();
        assertThat(problems).isEqualTo("  public java.util.List<java.lang.String> problems()");

        assertThat(diff(List.of("public final class io.unitas.config.ConfigException", problems),
                        List.of("public final class io.unitas.config.ConfigException",
                                "  public java.util.List<java.lang.Object> problems()")))
                .contains("- public final class io.unitas.config.ConfigException :: "
                          + "public java.util.List<java.lang.String> problems()");
    }

    /**
     * The promised members that still take an internal type: the file readers' {@code parse(ConfigDocument, …)},
     * which the control plane and its client call on documents they parsed themselves. A user reads files with
     * {@code read(Path)} (and rules from text with {@code UnitRulesFile.parse(name, text, topology)}).
     */
    static final List<String> INTERNAL_IN_SIGNATURE = List.of(
            "io.unitas.config.ConsistencyFile", "io.unitas.config.FailoverPolicyFile", "io.unitas.config.HealthFile",
            "io.unitas.config.MeasuredLagFile", "io.unitas.config.TopologyFile", "io.unitas.config.UnitRulesFile");

    @Test
    void noPromisedSignature_namesAnInternalType_butTheListedOnes() {
        List<String> found = new ArrayList<>();
        for (String module : Modules.LIBRARIES) {
            String type = null;
            for (String line : PublicApi.of(Modules.mainClasses(module))) {
                if (!line.startsWith(" ")) {
                    type = line.replaceFirst("^.*? (class|interface|enum|record|@interface) ([\\w.$]+).*$", "$2");
                }
                if (line.contains(".internal.") && !INTERNAL_IN_SIGNATURE.contains(type)) {
                    found.add(module + ": " + line.strip());
                }
            }
        }
        assertThat(found).as("promise the type, or keep it out of the signature").isEmpty();
    }

    @Test
    void internalPackages_andPackagePrivateTypes_areNotPromised() {
        List<String> config = PublicApi.of(Modules.mainClasses("unitas-config"));

        assertThat(config).noneMatch(l -> l.contains("class io.unitas.config.internal."));
        assertThat(config).anyMatch(l -> l.startsWith("public final class io.unitas.config.UnitRulesFile"));
        assertThat(config).noneMatch(l -> l.contains("io.unitas.config.UnitRulesFile$Reader"));
    }
}
