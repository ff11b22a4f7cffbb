package io.unitas.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.core.Region;
import io.unitas.core.switchover.FailoverPolicy;
import io.unitas.core.switchover.FailoverPolicy.Group;
import io.unitas.core.switchover.FailoverPolicy.Mode;

class FailoverPolicyFileTest {

    private static final String DOCUMENTED = """
            groups:
              - name: keep-bj
                units: [u-bj]
                mode: off
                after: 0s
              - name: cn-users
                home: cn
                mode: automatic
                after: 30s
                promote_after: 2m
              - name: eu-users
                home: eu
                mode: ask
                after: 1m
                timeout: 90s
            """;

    @Test
    void theDocumentedFormReads_andWritesBackTheSame() {
        FailoverPolicy policy = FailoverPolicyFile.parse(ConfigDocument.parse("failover.yaml", DOCUMENTED));

        assertThat(policy.groups()).containsExactly(
                new Group("keep-bj", List.of("u-bj"), null, Mode.OFF, Duration.ZERO, null, Duration.ofSeconds(60)),
                new Group("cn-users", List.of(), Region.of("cn"), Mode.AUTOMATIC, Duration.ofSeconds(30),
                          Duration.ofMinutes(2), Duration.ofSeconds(60)),
                new Group("eu-users", List.of(), Region.of("eu"), Mode.ASK, Duration.ofMinutes(1), null,
                          Duration.ofSeconds(90)));
        String json = FailoverPolicyFile.toTree(policy).toString();
        assertThat(FailoverPolicyFile.parse(ConfigDocument.parse("failover.json", json))).isEqualTo(policy);
    }

    @Test
    void theExampleReads() {
        FailoverPolicy example = FailoverPolicyFile.read(Path.of("../examples/failover.yaml"));

        assertThat(example.groups()).extracting(Group::name).containsExactly("paris", "cn-users", "us-users");
        assertThat(example.groups()).extracting(Group::mode).containsExactly(Mode.ASK, Mode.AUTOMATIC, Mode.OFF);
    }

    @Test
    void everyProblemIsReportedAtOnce_withFileLineAndPath() {
        String bad = """
                groups:
                  - name: a
                    mode: sometimes
                    after: soon
                  - home: cn
                    units: [u-sh]
                    mode: ask
                    after: 1s
                    colour: red
                """;

        assertThatThrownBy(() -> FailoverPolicyFile.parse(ConfigDocument.parse("failover.yaml", bad)))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactly(
                        "failover.yaml:2: groups[0]: neither home nor units (expected: one of them)",
                        "failover.yaml:3: groups[0].mode: 'sometimes' (expected: off, automatic or ask)",
                        "failover.yaml:4: groups[0].after: 'soon' (expected: a duration like 500ms, 5s, 2m or 1h)",
                        "failover.yaml:9: groups[1].colour: unknown key (expected one of: name, home, units, mode, "
                        + "after, promote_after, timeout)",
                        "failover.yaml:5: groups[1].name: missing (expected: a name for audit lines and proposals)",
                        "failover.yaml:5: groups[1]: both home and units (expected: one of them)"));
    }
}
