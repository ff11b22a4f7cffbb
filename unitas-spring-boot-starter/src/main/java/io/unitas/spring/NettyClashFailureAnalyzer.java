package io.unitas.spring;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Explains a start that failed on a missing Netty class or method: the Netty on the class path is older than the one
 * Armeria (unitas-data's home reads) needs, typically Spring Boot 3.5's managed Netty 4.1 winning over unitas's 4.2.
 * One line names both versions and the fix, instead of a {@code NoClassDefFoundError} deep in a bean's creation.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class NettyClashFailureAnalyzer implements FailureAnalyzer {

    private static final String VERSIONS = "/META-INF/unitas/versions.properties";

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        Throwable missing = nettyLinkageError(failure);
        if (missing == null) {
            return null;
        }
        Properties built = builtWith();
        String expected = built.getProperty("netty", "4.2");
        return new FailureAnalysis(describe(runningNetty(), expected, built.getProperty("armeria", "?"),
                                            missing.getMessage()),
                                   action(expected), failure);
    }

    static String describe(String running, String expected, String armeria, String missing) {
        return "Netty " + running + " is on the class path, but unitas-data's Armeria " + armeria + " needs Netty "
               + expected + " (missing: " + missing + ")";
    }

    static String action(String expected) {
        return "Import io.unitas:unitas-bom in <dependencyManagement> (before spring-boot-dependencies, if you import"
               + " that too), or set <netty.version>" + expected + "</netty.version> in your pom.";
    }

    /** A {@link LinkageError} (or class not found) about an {@code io.netty} type, anywhere in the causes. */
    static Throwable nettyLinkageError(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if ((t instanceof LinkageError || t instanceof ClassNotFoundException) && t.getMessage() != null
                && (t.getMessage().contains("io/netty/") || t.getMessage().contains("io.netty."))) {
                return t;
            }
        }
        return null;
    }

    /** The version of the netty-common jar loaded, or "unknown" when Netty cannot tell. */
    static String runningNetty() {
        try {
            io.netty.util.Version common = io.netty.util.Version.identify().get("netty-common");
            return common == null ? "unknown" : common.artifactVersion();
        } catch (LinkageError e) {
            return "unknown";
        }
    }

    static Properties builtWith() {
        Properties versions = new Properties();
        try (InputStream in = NettyClashFailureAnalyzer.class.getResourceAsStream(VERSIONS)) {
            if (in != null) {
                versions.load(in);
            }
        } catch (IOException e) {
            // the message then says "4.2" without the patch version: still the right advice
        }
        return versions;
    }
}
