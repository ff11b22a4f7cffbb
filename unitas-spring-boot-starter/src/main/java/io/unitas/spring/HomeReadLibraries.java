package io.unitas.spring;

import java.util.ArrayList;
import java.util.List;

import org.springframework.util.ClassUtils;

/**
 * Home reads configured ({@code unitas.readiness.home-reads.endpoints}, {@code .server.port}) on a class path without
 * the libraries they run on stop the start with one line each, naming the dependency to add. unitas-data declares
 * Armeria and unitas-server-bounds optional, so that a service without home reads does not carry them; without this
 * check the first read, or the server's start, would fail with a {@code NoClassDefFoundError}.
 */
final class HomeReadLibraries {

    private static final String ENDPOINTS = "unitas.readiness.home-reads.endpoints";
    private static final String SERVER_PORT = "unitas.readiness.home-reads.server.port";

    private HomeReadLibraries() {}

    /**
     * Stops the start when the home reads of {@code properties} need a library that {@code loader} (the application's
     * class loader) cannot load.
     *
     * @throws UnitasConfigurationException with one line per missing library, naming the property and the dependency
     */
    static void check(UnitasProperties properties, ClassLoader loader) {
        UnitasProperties.HomeReads settings = properties.getReadiness().getHomeReads();
        List<String> problems = new ArrayList<>();
        if (!settings.getEndpoints().isEmpty()) {
            need(problems, loader, ENDPOINTS, "home reads need", "Armeria", "com.linecorp.armeria.client.WebClient",
                 "com.linecorp.armeria:armeria");
        }
        if (settings.getServer().getPort() != null) {
            need(problems, loader, SERVER_PORT, "the home-read server needs", "Armeria",
                 "com.linecorp.armeria.server.Server", "com.linecorp.armeria:armeria");
            need(problems, loader, SERVER_PORT, "the home-read server needs", "unitas-server-bounds",
                 "io.unitas.server.bounds.ConnectionBounds", "io.unitas:unitas-server-bounds");
        }
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
    }

    private static void need(List<String> problems, ClassLoader loader, String property, String needs, String library,
                             String className, String dependency) {
        if (!ClassUtils.isPresent(className, loader)) {
            problems.add(property + ": " + needs + " " + library + " on the class path (missing: " + className
                         + "; add " + dependency + ")");
        }
    }
}
