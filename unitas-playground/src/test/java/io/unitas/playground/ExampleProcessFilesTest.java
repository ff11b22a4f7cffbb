package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.Region;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example pair's files as the process deployment writes them for cn and eu from port 41000, without starting
 * anything: per region two order and two inventory instances on the port plan's ports (the in-process ones, then
 * three per region after the regions' blocks), the order instances' registry listing every region's inventory
 * instances with their region, each following the control plane with the viewer's token; and a gateway of the example
 * in front of the region's order instances, the other region's example gateway its peer.
 */
class ExampleProcessFilesTest {

    private static final List<Region> REGIONS = List.of(Region.of("cn"), Region.of("eu"));

    @TempDir
    static Path dir;
    private static DefaultProcessDeployment deployment;

    @BeforeAll
    static void writeFiles() {
        deployment = DefaultProcessDeployment.files(ProcessDeployment.builder().regions(REGIONS).portsFrom(41000)
                                                                     .classPath("none").deployDir(dir).example(true));
    }

    @Test
    void orderInstances_listEveryRegionsInventoryInstances_withTheirRegion() throws IOException {
        Properties a = properties("cn/order-a.properties");
        Properties b = properties("cn/order-b.properties");

        assertThat(a.getProperty("server.port")).isEqualTo("41017");
        assertThat(b.getProperty("server.port"))
                .as("after the regions' blocks (41010..41029) and the links between them (41030..41039)")
                .isEqualTo("41040");
        assertThat(a.getProperty("unitas.region")).isEqualTo("cn");
        assertThat(a.getProperty("example.instance")).isEqualTo("order-cn-a");
        assertThat(a.getProperty("unitas.control-plane.url")).isEqualTo("http://127.0.0.1:41000");
        assertThat(a.getProperty("unitas.control-plane.token-file")).isEqualTo(dir.resolve("tokens/viewer.token")
                                                                                  .toString());
        assertThat(a.getProperty("management.endpoint.health.probes.enabled")).isEqualTo("true");
        String registry = "spring.cloud.discovery.client.simple.instances.inventory";
        assertThat(List.of(0, 1, 2, 3)).map(i -> a.getProperty(registry + "[" + i + "].uri") + " "
                                                  + a.getProperty(registry + "[" + i + "].metadata[unitas.region]"))
                                       .containsExactly("http://127.0.0.1:41018 cn", "http://127.0.0.1:41041 cn",
                                                        "http://127.0.0.1:41028 eu", "http://127.0.0.1:41044 eu");
        assertThat(a.getProperty(registry + "[4].uri")).isNull();
    }

    @Test
    void inventoryInstances_haveTheirOwnPorts_andNoRegistry() throws IOException {
        Properties a = properties("eu/inventory-a.properties");
        Properties b = properties("eu/inventory-b.properties");

        assertThat(a.getProperty("server.port")).isEqualTo("41028");
        assertThat(b.getProperty("server.port")).isEqualTo("41044");
        assertThat(b.getProperty("unitas.region")).isEqualTo("eu");
        assertThat(b.stringPropertyNames()).noneMatch(n -> n.startsWith("spring.cloud.discovery"));
    }

    @Test
    void exampleGateway_sendsItsRegionToItsOrderInstances_andTheOthersToTheirExampleGateways() throws IOException {
        String yaml = Files.readString(dir.resolve("cn/example-gateway.yaml"));

        assertThat(yaml).contains("region: cn\n", "listen: 127.0.0.1:41042\n",
                                  "  cn: {endpoints: ['127.0.0.1:41017', '127.0.0.1:41040'], health_check: "
                                  + ProcessDeployment.LIVENESS + "}\n",
                                  "  eu: {endpoints: ['127.0.0.1:41045'], health_check: /unitas/healthz}\n",
                                  "token_file: '" + dir.resolve("tokens/viewer.token") + "'");
    }

    @Test
    void describe_namesEveryProcessOfThePair_andAnOrderEnteringAtAnotherRegion() {
        String text = deployment.describe();

        assertThat(text).contains("cn/order-a", "cn/order-b", "cn/inventory-b", "eu/inventory-a",
                                  "eu/example-gateway http://127.0.0.1:41045", "config eu/order-b.properties",
                                  "-H 'x-user-id: 42' -H 'content-type: application/json' -d '{\"sku\":\"book\"}'"
                                  + " http://127.0.0.1:41045/orders");
    }

    @Test
    void withoutTheExample_noFilesOfIt_andTheNaiveSetupRefusesIt(@TempDir Path other) {
        DefaultProcessDeployment.files(ProcessDeployment.builder().regions(REGIONS).portsFrom(41000).classPath("none")
                                                        .deployDir(other));

        assertThat(other.resolve("cn/order-a.properties")).doesNotExist();
        assertThat(other.resolve("cn/example-gateway.yaml")).doesNotExist();
        assertThatThrownBy(() -> ProcessDeployment.builder().regions(REGIONS).naive(true).example(true)
                                                  .replication(ProcessDeployment.Replication.NONE).validate())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("example: on (expected: off with the naive setup, which has no gateway or control plane"
                            + " for it)");
    }

    private static Properties properties(String name) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(dir.resolve(name))) {
            p.load(r);
        }
        return p;
    }
}
