package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import io.unitas.core.rules.KeySource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** A path key source of the rules that none of the service's mappings carries is named at start, one line each. */
@ExtendWith(OutputCaptureExtension.class)
class PathKeySourcesTest {

    @Test
    void aMappingCarriesAPatternThatItStartsWith_variableWhereTheKeyIs() {
        assertThat(PathKeySources.carries("/wallets/{id}/deposits", "/wallets/{userId}")).isTrue();
        assertThat(PathKeySources.carries("/wallets/{userId}", "/wallets/{userId}")).isTrue();
        assertThat(PathKeySources.carries("/{kind}/{id}", "/wallets/{userId}")).isTrue();
        assertThat(PathKeySources.carries("/wallets/**", "/wallets/{userId}")).isTrue();
        assertThat(PathKeySources.carries("/wallets", "/wallets/{userId}")).isFalse();
        assertThat(PathKeySources.carries("/wallets/all", "/wallets/{userId}")).isFalse();
        assertThat(PathKeySources.carries("/walets/{id}", "/wallets/{userId}")).isFalse();
        assertThat(PathKeySources.uncarried(List.of(KeySource.header("x-user-id"), KeySource.path("/a/{k}"),
                                                    KeySource.path("/b/{k}")), List.of("/b/{id}/c")))
                .containsExactly("/a/{k}");
    }

    @Test
    void aPatternThatMatchesNoMapping_isOneWarningAtStart_naming_theRulesFile(CapturedOutput output) {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .withConfiguration(StarterAutoConfigurations.all())
                .withUserConfiguration(Notes.class)
                .withPropertyValues("unitas.region=eu", "unitas.topology=classpath:unitas/topology.yaml",
                                    "unitas.rules=classpath:unitas/path-rules.yaml")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("unitas.rules (classpath:unitas/path-rules.yaml): key source {path: /nots/{userId}}"
                                    + " matches none of this service's request mappings");
        assertThat(output).doesNotContain("key source {path: /notes/{userId}}");
    }

    @RestController
    static class Notes {

        @GetMapping("/notes/{userId}/latest")
        String latest(@PathVariable String userId) {
            return userId;
        }
    }
}
