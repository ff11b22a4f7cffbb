package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.Region;
import io.unitas.dns.DnsConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process deployment's entry tier as files: each region's {@code dns.yaml} is one {@code unitas dns} reads, on a
 * port of its own, fed by the control plane and keeping its state in the region's folder; each wallet keeps the
 * control plane's fallback pool in its region's folder.
 */
class DeploymentDnsFilesTest {

    private static final List<Region> REGIONS = List.of(Region.of("cn"), Region.of("eu"), Region.of("us"));

    @TempDir
    Path dir;

    @Test
    void everyRegion_hasItsDnsServer_andItsWalletsKeepThePoolInItsFolder() throws Exception {
        ProcessDeployment.Builder b = ProcessDeployment.builder().regions(REGIONS).portsFrom(42000).classPath("none")
                                                       .deployDir(dir).instances(2)
                                                       .replication(ProcessDeployment.Replication.NONE);
        DefaultProcessDeployment.files(b);

        for (int i = 0; i < REGIONS.size(); i++) {
            Region r = REGIONS.get(i);
            DnsConfig dns = DnsConfig.read(dir.resolve(r.id() + "/dns.yaml"));
            assertThat(dns.zone()).isEqualTo("shop.example.");
            assertThat(dns.listen().getPort()).as(r.id()).isEqualTo(42004 + i);
            assertThat(Files.readString(dir.resolve(r.id() + "/dns.yaml")))
                    .contains("url: 'http://127.0.0.1:42000'", "state_file: '" + dir.resolve(r.id() + "/dns.state.json"));
            for (String wallet : List.of("wallet-a", "wallet-b")) {
                assertThat(Files.readString(dir.resolve(r.id() + "/" + wallet + ".properties")))
                        .contains("unitas.resolver.pool-file=" + dir.resolve(r.id() + "/fallback-pool.bin"));
            }
        }
    }

    @Test
    void moreRegionsThanDnsPorts_areRefusedInOneLine() {
        List<Region> seven = List.of(Region.of("a1"), Region.of("a2"), Region.of("a3"), Region.of("a4"),
                                     Region.of("a5"), Region.of("a6"), Region.of("a7"));
        assertThatThrownBy(() -> ProcessDeployment.builder().regions(seven).classPath("none")
                                                  .replication(ProcessDeployment.Replication.NONE).validate())
                .hasMessage("regions: 7 (expected: at most 6 on processes, each region's DNS server on one of the"
                            + " control plane's ports)");
    }
}
