package io.unitas.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;

/**
 * A module's {@code ..internal..} packages are its own: no other module uses them, except the uses listed in
 * {@link #INTENDED}. Those are unitas's own modules, released together at one version, sharing a parser or a
 * wire codec; a user (the examples, the docs' code) uses none. A new use is a decision: list it here, or promise
 * the type by moving it out of {@code internal} (and recording it in the module's API baseline).
 */
class InternalPackagesTest {

    /**
     * Module → the modules whose internal packages it is meant to use. unitas-config's: the one file parser
     * ({@code ConfigDocument}, {@code DocumentReader}), the duration grammar, secret-file checks and file stamps;
     * unitas-control-client's: the raw HTTP client, the wire codec and the routing-state readers the servers that
     * follow the control plane share; unitas-core's: CRC-32 and the RTT window the resolver measures with;
     * unitas-data's: the JDBC idempotency store the starter wires.
     */
    static final Map<String, Set<String>> INTENDED = Map.ofEntries(
            Map.entry("unitas-control-client", Set.of("unitas-config")),
            Map.entry("unitas-resolver", Set.of("unitas-core", "unitas-config")),
            Map.entry("unitas-health", Set.of("unitas-config", "unitas-control-client")),
            Map.entry("unitas-control", Set.of("unitas-config", "unitas-control-client")),
            Map.entry("unitas-gateway", Set.of("unitas-config", "unitas-control-client")),
            Map.entry("unitas-dns", Set.of("unitas-config", "unitas-control-client")),
            Map.entry("unitas-playground", Set.of("unitas-control-client", "unitas-config")),
            Map.entry("unitas-cli", Set.of("unitas-config")),
            Map.entry("unitas-playground-cli", Set.of("unitas-config")),
            Map.entry("unitas-spring-boot-starter", Set.of("unitas-config", "unitas-data")));

    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern INTERNAL_IMPORT = Pattern.compile(
            "^\\s*import (?:static )?(io\\.unitas\\.[\\w.]*\\.internal\\.[\\w.*]+);");

    /** The modules the root pom builds that have classes of their own (the Initializr projects are users'). */
    static List<String> modules() throws IOException {
        String pom = Files.readString(Modules.ROOT.resolve("pom.xml"));
        String list = pom.substring(pom.indexOf("<modules>"), pom.indexOf("</modules>"));
        List<String> modules = new ArrayList<>();
        Matcher m = MODULE.matcher(list);
        while (m.find()) {
            if (Files.isDirectory(Modules.dir(m.group(1)).resolve("src/main/java/io/unitas"))) {
                modules.add(m.group(1));
            }
        }
        return modules;
    }

    /** Each use of another module's internal package not in {@code intended}: "user: class uses class (owner)". */
    static List<String> unintended(Map<String, JavaClasses> byModule, Map<String, Set<String>> intended) {
        Map<String, String> owner = new HashMap<>();
        byModule.forEach((module, classes) -> classes.forEach(c -> owner.put(c.getPackageName(), module)));
        Set<String> found = new TreeSet<>();
        byModule.forEach((module, classes) -> {
            for (JavaClass user : classes) {
                for (Dependency use : user.getDirectDependenciesFromSelf()) {
                    String pkg = use.getTargetClass().getPackageName();
                    String of = owner.get(pkg);
                    if (pkg.contains(".internal") && of != null && !of.equals(module)
                        && !intended.getOrDefault(module, Set.of()).contains(of)) {
                        found.add(module + ": " + user.getName() + " uses " + use.getTargetClass().getName()
                                  + " (internal to " + of + ")");
                    }
                }
            }
        });
        return new ArrayList<>(found);
    }

    private static Map<String, JavaClasses> compiled;

    static synchronized Map<String, JavaClasses> compiled() throws IOException {
        if (compiled == null) {
            compiled = new HashMap<>();
            for (String module : modules()) {
                compiled.put(module, Modules.mainClasses(module));
            }
        }
        return compiled;
    }

    @Test
    void noModule_usesAnothersInternalPackages_unlessListed() throws IOException {
        assertThat(unintended(compiled(), INTENDED))
                .as("uses of internal packages not listed in InternalPackagesTest.INTENDED").isEmpty();
    }

    @Test
    void everyListedUse_isMade_soTheListStaysExact() throws IOException {
        Map<String, JavaClasses> byModule = compiled();
        List<String> unused = new ArrayList<>();
        INTENDED.forEach((user, owners) -> owners.forEach(owner -> {
            Map<String, Set<String>> without = new HashMap<>(INTENDED);
            without.put(user, owners.stream().filter(o -> !o.equals(owner)).collect(Collectors.toSet()));
            if (unintended(byModule, without).isEmpty()) {
                unused.add(user + " → " + owner);
            }
        }));
        assertThat(unused).as("listed in INTENDED but not used: take them off").isEmpty();
    }

    @Test
    void anUnlistedUse_isNamed() throws IOException {
        Map<String, JavaClasses> byModule = compiled();
        Map<String, Set<String>> withoutGateway = new HashMap<>(INTENDED);
        withoutGateway.remove("unitas-gateway");

        assertThat(unintended(byModule, withoutGateway)).contains(
                "unitas-gateway: io.unitas.gateway.GatewayConfigReader uses "
                + "io.unitas.config.internal.DocumentReader (internal to unitas-config)");
    }

    /** Each {@code import} of an internal package in {@code file}, as "file:line: name". */
    static List<String> internalImports(Path file) throws IOException {
        List<String> found = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = INTERNAL_IMPORT.matcher(lines.get(i));
            if (m.find()) {
                found.add(Modules.ROOT.relativize(file) + ":" + (i + 1) + ": " + m.group(1));
            }
        }
        return found;
    }

    @Test
    void anInternalImportInADoc_isNamedByFileAndLine(@TempDir Path dir) throws IOException {
        Path doc = Files.writeString(dir.resolve("doc.md"), """
                ```java
                import io.unitas.config.TopologyFile;
                import io.unitas.config.internal.ConfigDocument;
                ```
                Prose may name io.unitas.config.internal.ConfigDocument.
                """);

        assertThat(internalImports(doc)).singleElement().asString()
                .endsWith("doc.md:3: io.unitas.config.internal.ConfigDocument");
    }

    @Test
    void theDocsAndTheExamples_useNoInternalPackage() throws IOException {
        List<String> found = new ArrayList<>();
        List<Path> files = new ArrayList<>(List.of(Modules.ROOT.resolve("README.md")));
        for (String dir : List.of("docs", "examples", "unitas-spring-boot-initializr-test",
                                  "unitas-spring-boot4-initializr-test")) {
            try (Stream<Path> walk = Files.walk(Modules.ROOT.resolve(dir))) {
                walk.filter(p -> p.toString().endsWith(".md") || p.toString().endsWith(".java"))
                        .filter(p -> !p.toString().contains("/target/")).forEach(files::add);
            }
        }
        for (Path file : files) {
            found.addAll(internalImports(file));
        }
        assertThat(found).as("what a user reads and copies names only promised types").isEmpty();
    }
}
