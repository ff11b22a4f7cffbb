package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each probe's driver is optional: on a class path without PostgreSQL's, MariaDB's and Lettuce's jars, a file that
 * probes only HTTP loads, and a probe whose driver is missing is one problem naming the check and the artifact to
 * add, not a {@code NoClassDefFoundError}.
 */
class OptionalDriversTest {

    private static final List<String> DRIVER_JARS = List.of("postgresql-", "mariadb-java-client-", "lettuce-core-");

    @ParameterizedTest
    @CsvSource({
            "postgres, postgresql://postgres@127.0.0.1:5432/shop, org.postgresql:postgresql",
            "mysql,    mysql://root@127.0.0.1:3306/shop,          org.mariadb.jdbc:mariadb-java-client",
            "redis,    redis://127.0.0.1:6379,                    io.lettuce:lettuce-core"})
    void aProbeWhoseDriverIsMissing_isOneProblemNamingTheArtifact(String kind, String target, String artifact)
            throws Exception {
        Throwable thrown = catchThrowable(() -> parseWithoutDrivers("""
                region: cn
                checks:
                  - name: web
                    kind: http
                    target: http://127.0.0.1:8080/livez
                  - name: db
                    kind: %s
                    target: %s
                """.formatted(kind, target)));

        assertThat(thrown).isNotNull();
        assertThat(thrown.getClass().getName()).isEqualTo("io.unitas.config.ConfigException");
        assertThat(thrown.getMessage()).isEqualTo("health.yaml:7: checks[1].kind: " + kind + " (expected its driver on"
                                                  + " the class path: add " + artifact + " beside unitas-health)");
    }

    @ParameterizedTest
    @CsvSource({"http, http://127.0.0.1:8080/livez", "tcp, 127.0.0.1:5432"})
    void aFileWithoutDatabaseProbes_loadsWithoutAnyDriver(String kind, String target) throws Exception {
        Object config = parseWithoutDrivers("""
                region: cn
                checks:
                  - name: web
                    kind: %s
                    target: %s
                """.formatted(kind, target));

        assertThat(config.getClass().getName()).isEqualTo(HealthConfig.class.getName());
        assertThat(config.getClass().getClassLoader()).isNotSameAs(HealthConfig.class.getClassLoader());
    }

    /** {@code HealthConfig.parse} in a class loader that sees the test class path minus the drivers' jars. */
    private static Object parseWithoutDrivers(String yaml) throws Exception {
        List<URL> urls = new ArrayList<>();
        List<String> hidden = new ArrayList<>();
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (String entry : classPath.split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (DRIVER_JARS.stream().anyMatch(name::startsWith)) {
                hidden.add(name);
            } else {
                urls.add(url(entry));
            }
        }
        assertThat(hidden).as("the drivers' jars on the test class path").hasSize(DRIVER_JARS.size());
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new),
                                                        ClassLoader.getPlatformClassLoader())) {
            Method parse = loader.loadClass(HealthConfig.class.getName())
                                 .getMethod("parse", String.class, String.class);
            try {
                return parse.invoke(null, "health.yaml", yaml);
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof Exception cause ? cause : new IllegalStateException(e.getCause());
            }
        }
    }

    private static URL url(String entry) {
        try {
            return Path.of(entry).toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(entry, e);
        }
    }
}
