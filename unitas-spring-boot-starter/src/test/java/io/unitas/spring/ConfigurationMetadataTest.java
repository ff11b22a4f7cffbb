package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The configuration metadata IDEs complete {@code unitas.*} from: generated into the starter's jar by Boot's
 * configuration processor, each key with its description (the field's comment) and, where there is one, its default;
 * the deprecated aliases marked deprecated, with their replacement.
 */
class ConfigurationMetadataTest {

    private static Map<String, JsonNode> properties() throws Exception {
        Map<String, JsonNode> byName = new HashMap<>();
        try (InputStream in = UnitasProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("META-INF/spring-configuration-metadata.json in the starter").isNotNull();
            new ObjectMapper().readTree(in).get("properties").forEach(p -> byName.put(p.get("name").asText(), p));
        }
        return byName;
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            unitas.enabled                               | Whether the starter does anything at all.  | true
            unitas.region                                | The region this service instance runs in   | -
            unitas.topology                              | Where the topology file is                 | -
            unitas.rules                                 | Where the unit rules file is.              | -
            unitas.control-plane.url                     | The control plane's base URL               | -
            unitas.idempotency.header                    | The request header carrying the key        | Idempotency-Key
            unitas.readiness.home-reads.timeout          | The most one home read or idempotency call | -
            unitas.readiness.home-reads.server.port      | The port to listen on                      | -
            unitas.reload-interval                       | How often                                  | 1s
            unitas.write-guard.forward.grpc-targets      | Per region, host:port                      | -
            unitas.write-guard.forward.grpc-plaintext    | Whether the gRPC targets are reached       | false
            unitas.reconciliation.window                 | How often each unit is compared with its   | 10s
            unitas.reconciliation.enabled                | Whether reconciliation runs (default: when | -
            unitas.resolver.pool-file                    | Where the fallback pool is kept           | -
            unitas.resolver.pool-refresh                 | How often the pool is fetched again        | 1m
            """)
    void keyProperties_areListed_withTheirDescriptionAndDefault(String name, String description, String defaultValue)
            throws Exception {
        JsonNode property = properties().get(name);
        assertThat(property).as(name).isNotNull();
        assertThat(property.path("description").asText()).as(name + " description").startsWith(description);
        if (defaultValue != null) {
            assertThat(property.path("defaultValue").asText()).as(name + " default").isEqualTo(defaultValue);
        }
        assertThat(property.path("deprecated").asBoolean()).as(name + " deprecated").isFalse();
    }

    /** The deprecated names: an IDE strikes them through and offers the one timeout instead. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            unitas.readiness.home-timeout        | unitas.readiness.home-reads.timeout
            unitas.readiness.home-reads.deadline | unitas.readiness.home-reads.timeout
            """)
    void deprecatedAliases_areMarkedDeprecated_withTheirReplacementAndWhy(String name, String replacement)
            throws Exception {
        JsonNode property = properties().get(name);
        assertThat(property).as(name).isNotNull();
        assertThat(property.path("deprecated").asBoolean()).as(name + " deprecated").isTrue();
        JsonNode deprecation = property.path("deprecation");
        assertThat(deprecation.path("replacement").asText()).as(name + " replacement").isEqualTo(replacement);
        assertThat(deprecation.path("level").asText()).as(name + " level").isEqualTo("warning");
        assertThat(deprecation.path("reason").asText()).as(name + " reason").startsWith("One timeout for a home read");
    }
}
