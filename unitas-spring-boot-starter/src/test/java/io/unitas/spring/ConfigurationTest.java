package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.client.InstanceSelector;
import io.unitas.client.RoutingSnapshot;
import io.unitas.core.RegionHealth;
import io.unitas.core.Region;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.client.RestClientCustomizer;
import org.springframework.boot.web.reactive.function.client.WebClientCustomizer;

/**
 * {@code unitas.*} in application.yaml: what a valid configuration builds, and how each mistake stops the start with
 * the property (or file line) named and what was expected.
 */
class ConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(StarterAutoConfigurations.all())
            .withPropertyValues("unitas.region=eu", "unitas.topology=classpath:unitas/topology.yaml",
                                "unitas.rules=classpath:unitas/rules.yaml");

    private static String analysed(Throwable failure) {
        FailureAnalysis analysis = new UnitasFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("analysis of %s", failure).isNotNull();
        return analysis.getDescription();
    }

    @Test
    void staticFiles_buildTheRoutingState_everyRegionHealthyWithoutAHealthFile() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(InstanceSelector.class);
            RoutingSnapshot s = context.getBean(UnitasRoutingState.class).current();
            assertThat(s.rules().units()).hasSize(3);
            assertThat(s.health().regions().values()).containsOnly(RegionHealth.up());
            assertThat(context.getBean(InstanceSelector.class).self()).isEqualTo("eu");
        });
    }

    @Test
    void aHealthFile_isRead() {
        runner.withPropertyValues("unitas.health=classpath:unitas/health.json").run(context -> {
            RoutingSnapshot s = context.getBean(UnitasRoutingState.class).current();
            assertThat(s.health().isHealthy(Region.of("cn"))).isTrue();
        });
    }

    @Test
    void everyMistakeInTheProperties_isNamedAtOnce_withWhatWasExpected() {
        runner.withPropertyValues("unitas.region=", "unitas.headers.unit=x unit", "unitas.services.accounts.kind=central")
              .run(context -> {
                  assertThat(context).hasFailed();
                  assertThat(analysed(context.getStartupFailure())).contains(
                          "unitas.region: expected: the region this service runs in, e.g. eu",
                          "unitas.headers.unit: 'x unit' (expected: letters, digits and !#$%&'*+-.^_`|~ only)",
                          "unitas.services[accounts].kind: 'central' (expected: core, global or shared)");
              });
    }

    @Test
    void secretFilesOthersMayRead_orThatAreLinks_areNamedAtOnce_withTheFix(@TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("viewer.token"), "t\n");
        Path key = Files.writeString(dir.resolve("regions.key"), "not read\n");
        Path link = Files.createSymbolicLink(dir.resolve("home-reads.token"), token);
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r-----"));
        runner.withPropertyValues("unitas.control-plane.token-file=" + token,
                                  "unitas.readiness.home-reads.token-file=" + link,
                                  "unitas.readiness.home-reads.client-cert=" + dir.resolve("regions.crt"),
                                  "unitas.readiness.home-reads.client-key=" + key,
                                  "unitas.readiness.home-reads.server.tls-cert=" + dir.resolve("regions.crt"),
                                  "unitas.readiness.home-reads.server.tls-key=" + key)
              .run(context -> {
                  assertThat(context).hasFailed();
                  String open = " has mode rw-r--r--, open to others (expected: 600 or stricter, as chmod 600 ";
                  String keyOpen = " has mode rw-r-----, open to others (expected: 600 or stricter, as chmod 600 ";
                  assertThat(analysed(context.getStartupFailure())).contains(
                          "unitas.control-plane.token-file: " + token + ": the control-plane token" + open + token
                          + " gives)",
                          "unitas.readiness.home-reads.token-file: " + link + ": the token between regions is a"
                          + " symbolic link (expected: a regular file, or none; remove the link)",
                          "unitas.readiness.home-reads.client-key: " + key + ": the client's private key" + keyOpen
                          + key + " gives)",
                          "unitas.readiness.home-reads.server.tls-key: " + key + ": the TLS private key" + keyOpen
                          + key + " gives)");
              });
    }

    @Test
    void anUnknownRegion_isNamedWithTheTopologysRegions() {
        runner.withPropertyValues("unitas.region=mars").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysed(context.getStartupFailure())).contains(
                    "unitas.region: 'mars' (expected: one of [cn, eu, us], the regions of "
                    + "classpath:unitas/topology.yaml)");
        });
    }

    @Test
    void aFencesFileBesideClasspathStateFiles_andAControlPlaneURLThatIsNoURL_areNamed() {
        runner.withPropertyValues("unitas.fences=file:/etc/unitas/fences.json").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysed(context.getStartupFailure())).contains(
                    "unitas.fences: 'file:/etc/unitas/fences.json' (expected: a file: location, with unitas.topology,"
                    + " unitas.rules and unitas.health file: locations too, so that all of them are followed)");
        });
        runner.withPropertyValues("unitas.control-plane.url=control:7400", "unitas.reload-interval=0s")
              .run(context -> {
                  assertThat(context).hasFailed();
                  assertThat(analysed(context.getStartupFailure())).contains(
                          "unitas.control-plane.url: 'control:7400' (expected: the control plane's http:// or https://"
                          + " base URL)",
                          "unitas.reload-interval: 'PT0S' (expected: a positive duration, e.g. 1s)");
              });
    }

    @Test
    void idempotencyStoresThatNameNoRegionOrNoDataSource_areNamedAtOnce() {
        new WebApplicationContextRunner()
                .withConfiguration(StarterAutoConfigurations.all())
                .withPropertyValues("unitas.region=eu", "unitas.topology=classpath:unitas/topology.yaml",
                                    "unitas.rules=classpath:unitas/rules.yaml", "unitas.idempotency.enabled=true",
                                    "unitas.idempotency.stores.cn=nope", "unitas.idempotency.stores.mars=marsDb")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(analysed(context.getStartupFailure())).contains(
                            "unitas.idempotency.stores.cn: 'nope' (expected: the name of a DataSource bean)",
                            "unitas.idempotency.stores.mars: unknown region (expected: one of the topology's)",
                            "unitas.idempotency.stores.eu: missing (expected: the name of the DataSource bean holding"
                            + " this region's records, or exactly one DataSource in the application)");
                });
    }

    /** An application with one {@link Idempotent} endpoint, and no DataSource unless a test adds one. */
    @org.springframework.web.bind.annotation.RestController
    static class Wallets {
        @Idempotent(owner = "{userId}", retention = "48h")
        @org.springframework.web.bind.annotation.PostMapping("/wallets/{userId}/deposits")
        String deposit(@org.springframework.web.bind.annotation.PathVariable String userId) {
            return userId;
        }
    }

    /** A retention that is no duration. */
    @org.springframework.web.bind.annotation.RestController
    static class WrongWallets {
        @Idempotent(owner = "{userId}", retention = "two days")
        @org.springframework.web.bind.annotation.PostMapping("/wallets/{userId}/withdrawals")
        String withdraw(@org.springframework.web.bind.annotation.PathVariable String userId) {
            return userId;
        }
    }

    /** An owner that names no path variable of its mapping. */
    @org.springframework.web.bind.annotation.RestController
    static class StrangerWallets {
        @Idempotent(owner = "{user}")
        @org.springframework.web.bind.annotation.PostMapping("/wallets/{userId}/withdrawals")
        String withdraw(@org.springframework.web.bind.annotation.PathVariable String userId) {
            return userId;
        }
    }

    private static WebApplicationContextRunner web() {
        return new WebApplicationContextRunner()
                .withConfiguration(StarterAutoConfigurations.all())
                .withConfiguration(AutoConfigurations.of(
                        org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration.class,
                        org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration.class))
                .withPropertyValues("unitas.region=eu", "unitas.topology=classpath:unitas/topology.yaml",
                                    "unitas.rules=classpath:unitas/rules.yaml");
    }

    @Test
    void aWrongWriteGuard_isNamedByItsProperties() {
        web().withConfiguration(AutoConfigurations.of(UnitasWriteGuardAutoConfiguration.class))
             .withPropertyValues("unitas.write-guard.mode=refuse", "unitas.write-guard.on-read-only=retry",
                                 "unitas.write-guard.hold-down=-1s")
             .run(context -> {
                 assertThat(context).hasFailed();
                 assertThat(analysed(context.getStartupFailure())).contains(
                         "unitas.write-guard.on-read-only: 'retry' (expected: fence or failover)",
                         "unitas.write-guard.hold-down: 'PT-1S' (expected: a duration >= 0, e.g. 5s");
             });
        web().withConfiguration(AutoConfigurations.of(UnitasWriteGuardAutoConfiguration.class))
             .withPropertyValues("unitas.write-guard.mode=refuse-all")
             .run(context -> assertThat(analysed(context.getStartupFailure()))
                     .contains("unitas.write-guard.mode: 'refuse-all' (expected: refuse, the default, forward or"
                               + " allow)"));
        web().withConfiguration(AutoConfigurations.of(UnitasWriteGuardAutoConfiguration.class))
             .run(context -> assertThat(context).hasNotFailed().hasSingleBean(WriteGuardDecision.class)
                                                .doesNotHaveBean(WriteForwarder.class));
    }

    @Test
    void forwardWithoutATargetForEveryOtherRegion_stopsTheStart_namingEachProperty() {
        web().withConfiguration(AutoConfigurations.of(UnitasWriteGuardAutoConfiguration.class))
             .withPropertyValues("unitas.write-guard.mode=forward",
                                 "unitas.write-guard.forward.targets.us=wallet-us:8080",
                                 "unitas.write-guard.forward.targets.mars=http://wallet-mars:8080",
                                 "unitas.write-guard.forward.timeout=0s")
             .run(context -> {
                 assertThat(context).hasFailed();
                 assertThat(analysed(context.getStartupFailure())).contains(
                         "unitas.write-guard.forward.targets.cn: missing (expected: the base URL of region cn's"
                         + " instance of this service or of its gateway, e.g. https://wallet-cn.internal:8080, since"
                         + " unitas.write-guard.mode is forward)",
                         "unitas.write-guard.forward.targets.us: 'wallet-us:8080' (expected: an http:// or https://"
                         + " URL with a host",
                         "unitas.write-guard.forward.targets.mars: not a region of the topology (expected: one of"
                         + " [cn, eu, us])",
                         "unitas.write-guard.forward.timeout: 'PT0S' (expected: a duration > 0, e.g. 5s)");
             });
        web().withConfiguration(AutoConfigurations.of(UnitasWriteGuardAutoConfiguration.class))
             .withPropertyValues("unitas.write-guard.mode=forward",
                                 "unitas.write-guard.forward.targets.us=https://wallet-us.internal:8080",
                                 "unitas.write-guard.forward.targets.cn=http://10.0.0.7:8080")
             .run(context -> assertThat(context).hasNotFailed().hasSingleBean(WriteForwarder.class));
    }

    @Test
    void forwardWithWrongGrpcTargets_stopsTheStart_namingEachProperty() {
        runner.withPropertyValues("unitas.write-guard.mode=forward",
                                  "unitas.write-guard.forward.grpc-targets.us=http://wallet-us:9090",
                                  "unitas.write-guard.forward.grpc-targets.mars=wallet-mars:9090")
              .run(context -> {
                  assertThat(context).hasFailed();
                  assertThat(analysed(context.getStartupFailure())).contains(
                          "unitas.write-guard.forward.grpc-targets.cn: missing (expected: host:port of region cn's"
                          + " gRPC server of this service or of its gateway, e.g. wallet-cn.internal:9090, since"
                          + " unitas.write-guard.mode is forward)",
                          "unitas.write-guard.forward.grpc-targets.us: 'http://wallet-us:9090' (expected: host:port,"
                          + " e.g. wallet-us.internal:9090)",
                          "unitas.write-guard.forward.grpc-targets.mars: not a region of the topology (expected: one"
                          + " of [cn, eu, us])");
              });
        runner.withPropertyValues("unitas.write-guard.mode=forward",
                                  "unitas.write-guard.forward.grpc-targets.us=wallet-us.internal:9090",
                                  "unitas.write-guard.forward.grpc-targets.cn=10.0.0.7:9090")
              .run(context -> assertThat(context).hasNotFailed().hasSingleBean(GrpcWriteForwarder.class));
        // none set: gRPC writes of another region's unit are refused, as before there was a gRPC forward
        runner.withPropertyValues("unitas.write-guard.mode=forward")
              .run(context -> assertThat(context).hasNotFailed().hasSingleBean(GrpcWriteForwarder.class));
        // read only in forward mode, and only with gRPC on the class path
        runner.withPropertyValues("unitas.write-guard.forward.grpc-targets.us=http://wallet-us:9090")
              .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(GrpcWriteForwarder.class));
        runner.withClassLoader(new FilteredClassLoader("io.grpc"))
              .withPropertyValues("unitas.write-guard.mode=forward",
                                  "unitas.write-guard.forward.grpc-targets.us=http://wallet-us:9090")
              .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("unitasGrpcWriteForwarder"));
    }

    @Test
    void anIdempotentEndpointWithoutAStoreForThisRegion_stopsTheStart_namingTheProperty() {
        web().withUserConfiguration(Wallets.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysed(context.getStartupFailure())).contains(
                    "unitas.idempotency.stores.eu: missing (expected: the name of the DataSource bean holding this"
                    + " region's records, or exactly one DataSource in the application); needed by @Idempotent on"
                    + " Wallets.deposit");
        });
    }

    @Test
    void idempotencySwitchedOff_withAnIdempotentEndpoint_stopsTheStart_namingTheProperty() {
        web().withUserConfiguration(Wallets.class)
             .withBean(javax.sql.DataSource.class, ConfigurationTest::h2)
             .withPropertyValues("unitas.idempotency.enabled=false")
             .run(context -> {
                 assertThat(context).hasFailed();
                 assertThat(analysed(context.getStartupFailure())).contains(
                         "unitas.idempotency.enabled: false (expected: true, the default, where @Idempotent or"
                         + " unitas.idempotency.paths is used); needed by @Idempotent on Wallets.deposit");
             });
    }

    @Test
    void idempotency_isOnWithoutAnyProperty_whenTheApplicationHasADataSource() {
        web().withUserConfiguration(Wallets.class)
             .withBean(javax.sql.DataSource.class, ConfigurationTest::h2)
             .run(context -> {
                 assertThat(context).hasNotFailed();
                 assertThat(context.getBean(IdempotencySetup.class).idempotency()).isNotNull();
             });
    }

    @Test
    void aRetentionThatIsNoDuration_isNamedWithItsMethod() {
        web().withUserConfiguration(WrongWallets.class)
             .withBean(javax.sql.DataSource.class, ConfigurationTest::h2)
             .run(context -> {
                 assertThat(context).hasFailed();
                 assertThat(analysed(context.getStartupFailure())).contains(
                         "@Idempotent on WrongWallets.withdraw: retention 'two days' (expected: a positive duration,"
                         + " e.g. 48h)");
             });
    }

    @Test
    void anOwnerThatIsNoPathVariable_isNamedWithItsMethod() {
        web().withUserConfiguration(StrangerWallets.class)
             .withBean(javax.sql.DataSource.class, ConfigurationTest::h2)
             .run(context -> {
                 assertThat(context).hasFailed();
                 assertThat(analysed(context.getStartupFailure())).contains(
                         "@Idempotent on StrangerWallets.withdraw: owner '{user}' is no path variable of"
                         + " [/wallets/{userId}/withdrawals] (expected: one of its {variables})");
             });
    }

    @Test
    void aHomeReadServerWithNothingToServe_stopsTheStart_namingItsPort() {
        web().withPropertyValues("unitas.readiness.home-reads.server.port=0", "unitas.readiness.home-reads.token=t")
             .run(context -> {
                 assertThat(context).hasFailed();
                 assertThat(analysed(context.getStartupFailure())).contains(
                         "unitas.readiness.home-reads.server.port: 0, but nothing to serve (expected: UnitasEntity"
                         + " beans, or idempotency with a store of this region)");
             });
    }

    @Test
    void aHomeReadServerWithoutAToken_stopsTheStart_namingTheProperty() {
        web().withBean(javax.sql.DataSource.class, ConfigurationTest::h2)
             .withPropertyValues("unitas.readiness.home-reads.server.port=0")
             .run(context -> {
                 assertThat(context).hasFailed();
                 assertThat(analysed(context.getStartupFailure())).contains(
                         "unitas.readiness.home-reads.token: missing (expected: the bearer token between regions, or"
                         + " token-file)");
             });
    }

    @Test
    void aHomesInstances_areRead_oneProtocolForAll() {
        web().withPropertyValues("unitas.readiness.home-reads.endpoints.cn=http://127.0.0.1:9, http://127.0.0.1:10",
                                 "unitas.readiness.home-reads.token=t")
             .run(context -> assertThat(context).hasNotFailed());
        web().withPropertyValues("unitas.readiness.home-reads.endpoints.cn=http://127.0.0.1:9,https://127.0.0.1:10",
                                 "unitas.readiness.home-reads.token=t")
             .run(context -> {
                 assertThat(context).hasFailed();
                 assertThat(analysed(context.getStartupFailure())).contains(
                         "unitas.readiness.home-reads.endpoints[cn]: 'https://127.0.0.1:10' (expected: the home's read"
                         + " server, http://host:port or https://host:port; its instances' URLs separated by commas,"
                         + " all http or all https)");
             });
    }

    @Test
    void aClientCertificateWithoutItsKey_stopsTheStart_namingBoth() {
        web().withPropertyValues("unitas.readiness.home-reads.endpoints.cn=https://127.0.0.1:9",
                                 "unitas.readiness.home-reads.token=t",
                                 "unitas.readiness.home-reads.client-cert=/etc/wallet/client.pem")
             .run(context -> {
                 assertThat(context).hasFailed();
                 assertThat(analysed(context.getStartupFailure())).contains(
                         "unitas.readiness.home-reads.client-cert and client-key: client-cert alone (expected: both,"
                         + " the PEM certificate chain and its key, or neither)");
             });
    }

    @Test
    void aClientCaWithoutTls_stopsTheStart_namingTheProperty() {
        web().withBean(javax.sql.DataSource.class, ConfigurationTest::h2)
             .withPropertyValues("unitas.readiness.home-reads.server.port=0", "unitas.readiness.home-reads.token=t",
                                 "unitas.readiness.home-reads.server.client-ca=/etc/wallet/regions-ca.pem")
             .run(context -> {
                 assertThat(context).hasFailed();
                 assertThat(analysed(context.getStartupFailure())).contains(
                         "unitas.readiness.home-reads.server.client-ca: '/etc/wallet/regions-ca.pem' without tls-cert"
                         + " and tls-key (expected: those too: client certificates are checked in the TLS handshake)");
             });
    }

    @Test
    void homeReadsWithoutArmeriaOnTheClassPath_stopTheStart_namingEachDependencyToAdd() {
        // unitas-data declares them optional: a service without home reads does not carry Armeria and Netty
        web().withClassLoader(new FilteredClassLoader("com.linecorp.armeria.", "io.unitas.server.bounds."))
             .withBean(javax.sql.DataSource.class, ConfigurationTest::h2)
             .withPropertyValues("unitas.readiness.home-reads.server.port=0", "unitas.readiness.home-reads.token=t",
                                 "unitas.readiness.home-reads.endpoints.cn=http://127.0.0.1:9")
             .run(context -> {
                 assertThat(context).hasFailed();
                 assertThat(analysed(context.getStartupFailure())).contains(
                         "unitas.readiness.home-reads.endpoints: home reads need Armeria on the class path (missing:"
                         + " com.linecorp.armeria.client.WebClient; add com.linecorp.armeria:armeria)",
                         "unitas.readiness.home-reads.server.port: the home-read server needs Armeria on the class"
                         + " path (missing: com.linecorp.armeria.server.Server; add com.linecorp.armeria:armeria)",
                         "unitas.readiness.home-reads.server.port: the home-read server needs unitas-server-bounds on"
                         + " the class path (missing: io.unitas.server.bounds.ConnectionBounds; add"
                         + " io.unitas:unitas-server-bounds)");
             });
    }

    @Test
    void withoutArmeriaOnTheClassPath_theDataLayerStartsWhenNoHomeReadsAreConfigured() {
        web().withClassLoader(new FilteredClassLoader("com.linecorp.armeria.", "io.unitas.server.bounds."))
             .withBean(javax.sql.DataSource.class, ConfigurationTest::h2)
             .run(context -> assertThat(context).hasNotFailed().hasSingleBean(UnitasReadiness.class));
    }

    private static javax.sql.DataSource h2() {
        org.h2.jdbcx.JdbcDataSource h2 = new org.h2.jdbcx.JdbcDataSource();
        h2.setURL("jdbc:h2:mem:config-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    @Test
    void aMissingFile_isNamedByItsProperty() {
        runner.withPropertyValues("unitas.rules=classpath:unitas/nope.yaml").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysed(context.getStartupFailure())).contains(
                    "unitas.rules: 'classpath:unitas/nope.yaml' (expected: an existing file, as a classpath: or "
                    + "file: location)");
        });
    }

    @Test
    void aWrongRulesFile_isNamedByFileLineAndPath() {
        runner.withPropertyValues("unitas.rules=classpath:unitas/bad-rules.yaml").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysed(context.getStartupFailure())).contains("classpath:unitas/bad-rules.yaml:2:",
                                                                        "units[0].region");
        });
    }

    @Test
    void aServletServiceWithoutWebFluxOrFeign_getsTheBlockingClientsOnly() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.web.reactive.", "feign."))
              .run(context -> {
                  assertThat(context).hasNotFailed().hasSingleBean(RestClientCustomizer.class)
                          .doesNotHaveBean(WebClientCustomizer.class)
                          .doesNotHaveBean("unitasFeignRequestInterceptor");
              });
    }

    @Test
    void disabled_startsNothing() {
        new ApplicationContextRunner().withConfiguration(StarterAutoConfigurations.all())
                .withPropertyValues("unitas.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(UnitasRoutingState.class));
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aRealStart_reportsTheProblemsInsteadOfAStackTraceWall(CapturedOutput output) {
        SpringApplication app = new SpringApplication(Minimal.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(() -> app.run("--unitas.region=mars")).isInstanceOf(RuntimeException.class);
        assertThat(output).contains("APPLICATION FAILED TO START", "The unitas settings are wrong:",
                                    "    unitas.region: 'mars' (expected: one of [cn, eu, us]",
                                    "Fix the unitas.* settings in application.yaml");
    }

    /** An application with nothing but auto-configuration and the test's application.yaml. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Minimal {
    }
}
