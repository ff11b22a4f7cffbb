package io.unitas.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;

/** The repository's modules as this module's tests see them: their directories and their compiled main classes. */
final class Modules {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /**
     * The library modules whose public surface is promised and recorded in {@code MODULE/api/MODULE.api}. The
     * servers (control, gateway, DNS), the commands and the playground are applications: what they promise is their
     * command line, their files and their HTTP API, not their classes; the testkit is the project's own test servers.
     */
    static final List<String> LIBRARIES = List.of(
            "unitas-core", "unitas-config", "unitas-control-client", "unitas-health", "unitas-resolver",
            "unitas-data", "unitas-cache", "unitas-client", "unitas-spring-boot-starter");

    private static final Pattern ARTIFACT = Pattern.compile(
            "<artifactId>(io\\.unitas:)?(unitas-[a-z0-9-]+)</artifactId>");

    private Modules() {}

    static Path dir(String module) {
        return ROOT.resolve(module);
    }

    /** The module's compiled main classes; a module not compiled yet is a failure that says how to compile it. */
    static JavaClasses mainClasses(String module) {
        Path classes = dir(module).resolve("target/classes");
        if (!Files.isDirectory(classes.resolve("io/unitas"))) {
            throw new AssertionError(module + " is not compiled (no " + ROOT.relativize(classes)
                                     + "/io/unitas): run mvn -B -ntp -o -q compile -pl " + module + " -am first");
        }
        return new ClassFileImporter().importPath(classes);
    }

    /** The modules unitas-bom lists: the jars the project publishes. */
    static List<String> published() throws IOException {
        String bom = Files.readString(ROOT.resolve("unitas-bom/pom.xml"));
        Matcher m = ARTIFACT.matcher(bom);
        List<String> modules = new ArrayList<>();
        while (m.find()) {
            if (!m.group(2).equals("unitas-bom") && !modules.contains(m.group(2))) {
                modules.add(m.group(2));
            }
        }
        return modules;
    }
}
