package io.unitas.control;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

import io.unitas.core.fence.FencePolicy;
import io.unitas.testkit.MutableClock;

/** The control plane's domain on its own: typed commands in, typed results out, no HTTP or JSON. */
class ControlServiceTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(T0);

    @Test
    void theServiceSpeaksNeitherHttpNorJson() {
        noClasses().that().haveSimpleNameStartingWith("ControlService")
                   .or().haveSimpleNameStartingWith("ChangeResult")
                   .or().haveSimpleNameStartingWith("Refusal")
                   .should().dependOnClassesThat().resideInAnyPackage("com.fasterxml..", "com.linecorp..")
                   .because("HTTP, JSON, If-Match and status codes belong to ControlApi")
                   .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                                                 .importPackages("io.unitas.control"));
    }

    @Test
    void theServicesParts_speakNeitherHttpNorJson() {
        noClasses().that().haveSimpleName("ChangeCommitter").or().haveSimpleName("ChangeCommands")
                   .or().haveSimpleName("HealthIntake").or().haveSimpleName("LeaderTick")
                   .should().dependOnClassesThat().resideInAnyPackage("com.fasterxml..", "com.linecorp..")
                   .because("HTTP, JSON, If-Match and status codes belong to ControlApi")
                   .check(mainClasses());
    }

    @Test
    void onlyTheCommitter_commitsStateOrWritesTheAudit() {
        noClasses().that().doNotHaveSimpleName("ChangeCommitter")
                   .should().callMethod(StateStore.class, "commit", ControlState.class)
                   .orShould().callMethod(StateStore.class, "audit", AuditEntry.class)
                   .because("every change is compared-and-set and audited in one place")
                   .check(mainClasses());
    }

    private static JavaClasses mainClasses() {
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                                      .importPackages("io.unitas.control");
    }

    @Test
    void aDryRun_isAPlan_andChangesNothing() {
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            ControlService service = seeded(store);
            long before = store.current().revision();

            ChangeResult result = service.startSwitchover("ops", request(true));

            assertThat(result).isInstanceOfSatisfying(ChangeResult.Planned.class, planned -> {
                assertThat(planned.plan().accepted()).isTrue();
                assertThat(planned.plan().target().id()).isEqualTo("eu");
                assertThat(planned.revision()).isEqualTo(before);
            });
            assertThat(store.current().revision()).isEqualTo(before);
            assertThat(store.current().switchover()).isNull();
        }
    }

    @Test
    void aStaleRevision_isAFailedPrecondition_namingBothRevisions() {
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            ControlService service = seeded(store);
            long current = store.current().revision();

            ChangeResult result = service.replaceRules("ops", current - 1,
                    new ControlService.Document("rules.json", Fixtures.RULES), "");

            assertThat(result).isEqualTo(new ChangeResult.PreconditionFailed(current - 1, current));
        }
    }

    @Test
    void aStartedSwitchover_isAppliedWithItsPlanAndRevision() {
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            ControlService service = seeded(store);

            ChangeResult result = service.startSwitchover("ops", request(false));

            assertThat(result).isInstanceOfSatisfying(ChangeResult.Applied.class, applied -> {
                assertThat(applied.revision()).isEqualTo(store.current().revision());
                assertThat(applied.plan().moves()).extracting(m -> m.unit()).containsExactly("u-sh");
                assertThat(applied.switchover().id()).isEqualTo("sw-1");
            });
        }
    }

    @Test
    void aChangeThatLanded_isReportedAsApplied_evenWhenItsAuditLineCannotBeWritten() {
        try (EmbeddedStore store = new EmbeddedStore(dir)) {
            ControlService seeded = seeded(store);
            FailingAudit failing = new FailingAudit(store);
            ControlService service = new ControlService(failing, clock, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(30),
                                                    io.unitas.core.switchover.SwitchoverCooldown.DEFAULT,
                                                    Duration.ofSeconds(30), ControlService.DEFAULT_TICK);
            long before = store.current().revision();

            ChangeResult result = service.addFences("ops", List.of("u-sh"), "db repair",
                                                    FencePolicy.DEFAULT_RETRY_AFTER);

            assertThat(result).isEqualTo(ChangeResult.Applied.at(before + 1));
            assertThat(store.current().fences()).containsKey("u-sh");
            assertThat(service.auditFailures()).isEqualTo(1);
            assertThat(seeded.auditFailures()).isZero();
        }
    }

    private static ControlService.SwitchoverRequest request(boolean dryRun) {
        return new ControlService.SwitchoverRequest(List.of("u-sh"), "", "eu", 1_000, null, null, dryRun, false, "");
    }

    private ControlService seeded(StateStore store) {
        ControlService service = new ControlService(store, clock, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(30),
                                                    io.unitas.core.switchover.SwitchoverCooldown.DEFAULT,
                                                    Duration.ofSeconds(30), ControlService.DEFAULT_TICK);
        assertThat(service.replaceTopology("root", 0, new ControlService.Document("topology.json",
                Fixtures.TOPOLOGY), "")).isInstanceOf(ChangeResult.Applied.class);
        assertThat(service.replaceRules("root", 1, new ControlService.Document("rules.json", Fixtures.RULES), ""))
                .isInstanceOf(ChangeResult.Applied.class);
        for (String region : new String[] {"cn", "eu", "us"}) {
            assertThat(service.reportHealth("agent", region, new ControlService.Document("health.json",
                    Fixtures.report(region, 1, T0, true, 10)))).isInstanceOf(ChangeResult.Applied.class);
        }
        return service;
    }

    /** A store whose audit log cannot be written (a full disk), and whose state can. */
    private static final class FailingAudit implements StateStore {
        private final StateStore delegate;

        FailingAudit(StateStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public ControlState current() {
            return delegate.current();
        }

        @Override
        public Optional<ControlState> commit(ControlState next) {
            return delegate.commit(next);
        }

        @Override
        public void subscribe(Consumer<ControlState> listener) {
            delegate.subscribe(listener);
        }

        @Override
        public AuditEntry audit(AuditEntry entry) {
            throw new java.io.UncheckedIOException(new java.io.IOException("No space left on device"));
        }

        @Override
        public List<AuditEntry> audit(long afterSeq, int limit) {
            return delegate.audit(afterSeq, limit);
        }

        @Override
        public boolean leader() {
            return true;
        }

        @Override
        public void close() {}
    }
}
