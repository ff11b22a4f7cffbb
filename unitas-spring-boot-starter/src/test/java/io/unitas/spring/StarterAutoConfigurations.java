package io.unitas.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.util.ClassUtils;

/** Every unitas auto-configuration the starter registers, read from its imports file as Boot reads it. */
final class StarterAutoConfigurations {

    private StarterAutoConfigurations() {
    }

    static Class<?>[] classes() {
        ClassLoader loader = StarterAutoConfigurations.class.getClassLoader();
        return ImportCandidates.load(AutoConfiguration.class, loader).getCandidates().stream()
                .filter(name -> name.startsWith("io.unitas."))
                .map(name -> ClassUtils.resolveClassName(name, loader))
                .toArray(Class<?>[]::new);
    }

    static AutoConfigurations all() {
        return AutoConfigurations.of(classes());
    }
}
