package io.unitas.spring;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * Replication asked for ({@code unitas.replication.transport}) on a class path that cannot do it stops the start with
 * one line naming what is missing. Without this the replication auto-configuration, which needs Spring's JDBC and
 * {@code unitas-data}, would simply not apply, and the service would run with replication silently off.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "unitas.replication", name = "transport")
public class UnitasReplicationRequirementsAutoConfiguration {

    UnitasReplicationRequirementsAutoConfiguration(Environment environment, ResourceLoader resources) {
        if (!environment.getProperty("unitas.enabled", Boolean.class, true)) {
            return;
        }
        String transport = environment.getProperty("unitas.replication.transport");
        ClassLoader loader = resources.getClassLoader();
        List<String> problems = new ArrayList<>();
        need(problems, transport, loader, "org.springframework.jdbc.datasource.DataSourceUtils", "spring-jdbc",
             "spring-boot-starter-jdbc");
        need(problems, transport, loader, "io.unitas.data.outbox.Outbox", "unitas-data", "io.unitas:unitas-data");
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
    }

    private static void need(List<String> problems, String transport, ClassLoader loader, String className,
                             String library, String dependency) {
        if (!ClassUtils.isPresent(className, loader)) {
            problems.add("unitas.replication.transport: '" + transport + "' needs " + library + " on the class path"
                         + " (missing: " + className + "; add " + dependency + ")");
        }
    }
}
