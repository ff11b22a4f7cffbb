package io.unitas.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.lang.model.SourceVersion;

import org.junit.jupiter.api.Test;

/**
 * Every jar the project publishes (the modules unitas-bom lists), as the build packaged it, names its module for
 * the module path: an {@code Automatic-Module-Name} in its manifest, a valid Java module name, {@code io.unitas.*},
 * no two alike. An integration test because the jars exist only after {@code package}; in a whole build this module
 * comes last, so every published jar is there.
 */
class ModuleNamesIT {

    @Test
    void everyPublishedJar_namesItsModule() throws IOException {
        Map<String, String> names = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (String module : Modules.published()) {
            Path jar = jar(module);
            if (jar == null) {
                problems.add(module + ": no jar in " + module + "/target (package it: mvn -B -ntp -o -q package"
                             + " -DskipTests -pl " + module + " -am)");
                continue;
            }
            String name;
            try (JarFile file = new JarFile(jar.toFile())) {
                name = file.getManifest() == null ? null
                        : file.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
            }
            if (name == null) {
                problems.add(Modules.ROOT.relativize(jar) + ": no Automatic-Module-Name in its manifest");
            } else if (!SourceVersion.isName(name) || !name.startsWith("io.unitas.")) {
                problems.add(Modules.ROOT.relativize(jar) + ": Automatic-Module-Name '" + name
                             + "' (expected: a Java module name io.unitas.*)");
            } else if (names.containsKey(name)) {
                problems.add(Modules.ROOT.relativize(jar) + ": Automatic-Module-Name '" + name
                             + "' is also " + names.get(name) + "'s");
            }
            names.put(name, module);
        }
        assertThat(problems).isEmpty();
        assertThat(names).containsEntry("io.unitas.control.client", "unitas-control-client")
                .containsEntry("io.unitas.spring", "unitas-spring-boot-starter");
    }

    /** MODULE/target/MODULE-VERSION.jar, the module's own classes (not its tests, sources or a shaded jar). */
    private static Path jar(String module) throws IOException {
        Path target = Modules.dir(module).resolve("target");
        if (!Files.isDirectory(target)) {
            return null;
        }
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(p -> p.getFileName().toString().matches(
                            Pattern.quote(module) + "-\\d[^/]*(?<!-tests|-sources)\\.jar"))
                    .findFirst().orElse(null);
        }
    }
}
