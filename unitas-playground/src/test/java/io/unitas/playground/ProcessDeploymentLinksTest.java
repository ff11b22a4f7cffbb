package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files of a unitas deployment route every connection between regions through the links' fault proxies: with
 * {@code --ports-from 41000} and cn, eu, us, cn → eu is 41040 (gateway), 41041 and 41042 (home reads of eu's a and
 * b), cn → us 41043 to 41045, cn → Kafka 41058 (in front of the broker's cn listener, 41059).
 */
class ProcessDeploymentLinksTest {

    private static final List<Region> REGIONS = List.of(Region.of("cn"), Region.of("eu"), Region.of("us"));

    @TempDir
    static Path dir;

    @BeforeAll
    static void write() {
        DefaultProcessDeployment.files(ProcessDeployment.builder().regions(REGIONS).portsFrom(41000).classPath("none")
                                                        .deployDir(dir).instances(2)
                                                        .replication(ProcessDeployment.Replication.KAFKA));
    }

    @Test
    void aGateway_reachesTheOtherRegionsGateways_throughItsLinks_andItsOwnWalletsDirectly() throws Exception {
        String cn = Files.readString(dir.resolve("cn/gateway.yaml"));

        assertThat(cn).contains("  cn: {endpoints: ['127.0.0.1:41013', '127.0.0.1:41014']")
                      .contains("  eu: {endpoints: ['127.0.0.1:41040'], health_check: /unitas/healthz}")
                      .contains("  us: {endpoints: ['127.0.0.1:41043'], health_check: /unitas/healthz}")
                      .doesNotContain("41020").doesNotContain("41030");
    }

    @Test
    void aWallet_readsAndClaimsAtHome_throughItsLinks_andReplicatesThroughItsLinkToTheBroker() throws Exception {
        String wallet = Files.readString(dir.resolve("cn/wallet-a.properties"));

        assertThat(wallet).contains("unitas.readiness.home-reads.endpoints.eu=http://127.0.0.1:41041,"
                                    + "http://127.0.0.1:41042\n")
                          .contains("unitas.readiness.home-reads.endpoints.us=http://127.0.0.1:41044,"
                                    + "http://127.0.0.1:41045\n")
                          .contains("unitas.replication.kafka.bootstrap-servers=127.0.0.1:41058\n");
        assertThat(Files.readString(dir.resolve("eu/wallet-b.properties")))
                .contains("unitas.readiness.home-reads.endpoints.cn=http://127.0.0.1:41047,http://127.0.0.1:41048\n")
                .contains("unitas.replication.kafka.bootstrap-servers=127.0.0.1:41060\n");
    }

    @Test
    void theBroker_listensForEachRegionBehindItsLink_andAdvertisesTheLink() throws Exception {
        String kafka = Files.readString(dir.resolve("kafka/server.properties")).replace("\\:", ":");

        assertThat(kafka).contains("REGION_CN://127.0.0.1:41059", "REGION_EU://127.0.0.1:41061",
                                   "REGION_US://127.0.0.1:41063")
                         .containsPattern("advertised.listeners=PLAINTEXT://127.0.0.1:41002,"
                                          + "REGION_CN://127.0.0.1:41058,REGION_EU://127.0.0.1:41060,"
                                          + "REGION_US://127.0.0.1:41062")
                         .contains("REGION_CN:PLAINTEXT");
    }
}
