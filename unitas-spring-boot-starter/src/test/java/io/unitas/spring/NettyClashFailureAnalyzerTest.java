package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A start that fails on a Netty class Armeria needs but the class path lacks (Boot 3.5's Netty 4.1 under unitas-data)
 * is explained in one line naming both versions, and what to change in the pom.
 */
class NettyClashFailureAnalyzerTest {

    private final NettyClashFailureAnalyzer analyzer = new NettyClashFailureAnalyzer();

    @Test
    void aMissingNettyClass_deepInABeansCreation_namesBothVersionsAndTheFix() {
        // the shape the failure had: a bean's creation, caused by Armeria linking against Netty 4.2 only
        Throwable failure = new BeanCreationException("unitasHomeReadPeers", "Failed to instantiate",
                new NoClassDefFoundError("io/netty/channel/IoEventLoopGroup"));

        FailureAnalysis analysis = analyzer.analyze(failure);

        // this build's class path has the versions the starter was built with: the message names those
        String netty = NettyClashFailureAnalyzer.runningNetty();
        String armeria = com.linecorp.armeria.common.util.Version.get("armeria").artifactVersion();
        assertThat(netty).startsWith("4.2.");
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription()).doesNotContain("\n").isEqualTo(
                "Netty " + netty + " is on the class path, but unitas-data's Armeria " + armeria + " needs Netty "
                + netty + " (missing: io/netty/channel/IoEventLoopGroup)");
        assertThat(analysis.getAction()).contains("io.unitas:unitas-bom",
                                                  "<netty.version>" + netty + "</netty.version>");
    }

    @Test
    void otherFailures_areLeftToTheirOwnAnalyzers() {
        assertThat(analyzer.analyze(new BeanCreationException("x", "y", new NoClassDefFoundError("com/acme/Thing"))))
                .isNull();
        assertThat(analyzer.analyze(new IllegalStateException("io/netty/ mentioned in a plain message"))).isNull();
    }
}
