package io.unitas.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/** Keeps unitas-core pure: it depends on nothing but the JDK, performs no I/O and reads no clock of its own. */
class ArchitectureTest {

    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.unitas.core");

    @Test
    void core_dependsOnlyOnJavaPackages() {
        ArchRule rule = noClasses().should().dependOnClassesThat()
                .resideOutsideOfPackages("java..", "io.unitas.core..")
                .because("unitas-core has no dependencies");
        rule.check(CORE);
    }

    @Test
    void core_performsNoIo() {
        ArchRule rule = noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("java.io..", "java.nio..", "java.net..", "java.sql..", "java.lang.reflect..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.lang.ProcessBuilder")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.lang.Runtime")
                .because("unitas-core decides; the modules around it do I/O");
        rule.check(CORE);
    }

    @Test
    void core_readsNoClockOfItsOwn() {
        ArchRule rule = noClasses().should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .orShould().callMethodWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                        com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching(
                                "systemUTC|systemDefaultZone|now")))
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.Random")
                .because("time and randomness are injected, so decisions are reproducible");
        rule.check(CORE);
    }
}
