package io.unitas.config.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import io.unitas.config.ConfigException;


class ConfigDocumentTest {

    @Test
    void aYamlAliasIsRefusedWithItsLine_notReadAsTheAnchorsName() {
        assertThatThrownBy(() -> ConfigDocument.parse("topology.yaml", """
                regions:
                  - &r cn
                  - eu
                center: *r
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessage("topology.yaml:4: not valid YAML: alias *r (expected: the value written out;"
                            + " unitas files do not use YAML anchors and aliases)");
    }

    @Test
    void aMergeKeyOfAnAliasIsRefusedToo() {
        assertThatThrownBy(() -> ConfigDocument.parse("gateway.yaml", """
                base: &base {connect: 1s}
                timeouts:
                  <<: *base
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("gateway.yaml:3: not valid YAML: alias *base");
    }

    @Test
    void aQuotedStarIsPlainText() {
        ConfigDocument doc = ConfigDocument.parse("t.yaml", "center: '*r'\n");
        assertThat(doc.root().get("center").asText()).isEqualTo("*r");
    }

    @Test
    void duplicateKeysNameTheFirstLine() {
        assertThatThrownBy(() -> ConfigDocument.parse("t.yaml", "a: 1\nb: 2\na: 3\n"))
                .hasMessage("t.yaml:3: not valid YAML: duplicate key 'a' (first on line 1)");
    }
}
