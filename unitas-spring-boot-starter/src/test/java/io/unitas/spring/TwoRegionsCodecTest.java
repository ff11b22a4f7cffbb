package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.unitas.testkit.Await;
import io.unitas.testkit.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two regions of the wallet service ({@link TwoRegionsTest#region}: two contexts, a PostgreSQL database each, home
 * reads over HTTP/2) whose builds declare the wallet with different codecs: the second region to start finds it at
 * start, before any read, and does not start, with one line naming the entity, the peer and both codecs. A pair of
 * the same build starts; a region whose peer is down at start starts, and finds the mismatch once the peer answers.
 */
class TwoRegionsCodecTest {

    private static final String MISMATCH = "UnitasEntity 'wallet': codec 'wallet-csv/1' in region eu, codec"
                                           + " 'wallet-text/1' in region us (expected: the same codecId in every"
                                           + " region)";

    private final List<ConfigurableApplicationContext> running = new ArrayList<>();
    private String euDb;
    private String usDb;

    @BeforeEach
    void databases() {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        euDb = "codec_eu_" + suffix;
        usDb = "codec_us_" + suffix;
        TwoRegionsTest.PG.execute("CREATE DATABASE " + euDb, "CREATE DATABASE " + usDb);
    }

    @AfterEach
    void stop() {
        running.forEach(ConfigurableApplicationContext::close);
        TwoRegionsTest.PG.execute("DROP DATABASE IF EXISTS " + euDb + " WITH (FORCE)",
                                  "DROP DATABASE IF EXISTS " + usDb + " WITH (FORCE)");
    }

    private ConfigurableApplicationContext start(String region, String db, int readPort, String peer, int peerPort,
                                                 String codec) {
        ConfigurableApplicationContext c = TwoRegionsTest.region(region, db, readPort, peer,
                                                                 "http://127.0.0.1:" + peerPort,
                                                                 "--wallet.codec=" + codec);
        running.add(c);
        return c;
    }

    @Test
    void aRegionWhoseWalletCodecDiffersFromItsPeers_doesNotStart_andSaysSoInOneLine() {
        int euReads = Ports.free();
        int usReads = Ports.free();
        start("us", usDb, usReads, "eu", euReads, "text");

        Throwable failed = catchThrowable(() -> start("eu", euDb, euReads, "us", usReads, "csv"));

        assertThat(configurationProblem(failed)).as(String.valueOf(failed)).isNotNull()
                .satisfies(e -> assertThat(e.problems()).containsExactly(MISMATCH));
    }

    @Test
    void twoRegionsOfOneBuild_start_andCompareTheirDeclarations() throws Exception {
        int euReads = Ports.free();
        int usReads = Ports.free();
        ConfigurableApplicationContext us = start("us", usDb, usReads, "eu", euReads, "text");
        ConfigurableApplicationContext eu = start("eu", euDb, euReads, "us", usReads, "text");

        assertThat(eu.getBean(HomeReadPeers.class).status())
                .as("eu compared with us at start").isEqualTo(new HomeReadPeers.Status(List.of(), Map.of()));
        assertThat(us.getBean(HomeReadPeers.class).status().notCompared())
                .as("us started first, when eu did not answer yet").containsOnlyKeys("eu");
        Await.until("us compares with eu once asked again", Duration.ofSeconds(30),
                    () -> us.getBean(HomeReadPeers.class).status().notCompared().isEmpty());
        assertThat(us.getBean(HomeReadPeers.class).status().mismatches()).isEmpty();
        assertThat(TwoRegionsTest.get(us, "/actuator/health").body())
                .contains("\"unitasHomeReads\":{\"status\":\"UP\"}");
    }

    @Test
    void aRegionWhosePeerIsDownAtStart_starts_andTheMismatchTurnsItsHomeReadsDownOnceThePeerAnswers()
            throws Exception {
        int euReads = Ports.free();
        int usReads = Ports.free();
        ConfigurableApplicationContext eu = start("eu", euDb, euReads, "us", usReads, "csv");
        assertThat(eu.getBean(HomeReadPeers.class).status().notCompared().get("us")).startsWith("unreachable (");
        assertThat(TwoRegionsTest.get(eu, "/actuator/health").body())
                .contains("\"unitasHomeReads\":{\"status\":\"UP\"}");

        // us of the other build, told of no reachable eu, so that it starts too
        start("us", usDb, usReads, "eu", Ports.free(), "text");

        Await.until("eu compares with us once us answers", Duration.ofSeconds(30),
                    () -> !eu.getBean(HomeReadPeers.class).status().mismatches().isEmpty());
        assertThat(eu.getBean(HomeReadPeers.class).status().mismatches()).containsExactly(MISMATCH);
        assertThat(TwoRegionsTest.get(eu, "/actuator/health").body())
                .contains("\"unitasHomeReads\":{\"status\":\"DOWN\"}");
    }

    private static UnitasConfigurationException configurationProblem(Throwable failed) {
        for (Throwable t = failed; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof UnitasConfigurationException problem) {
                return problem;
            }
        }
        return null;
    }
}
