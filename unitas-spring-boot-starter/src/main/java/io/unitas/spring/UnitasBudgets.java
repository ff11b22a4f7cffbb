package io.unitas.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import io.unitas.config.ConfigException;
import io.unitas.config.ConsistencyFile;
import io.unitas.config.internal.DurationFormat;
import io.unitas.core.consistency.ConsistencyLevel;
import io.unitas.core.consistency.Declaration;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.io.ResourceLoader;

/**
 * Each entity's staleness budget, declared in one place: the consistency contract that
 * {@code unitas.consistency.declarations} names (the file {@code unitas check consistency} checks in CI) or the
 * entity's own {@link UnitasEntity.Builder#stalenessBudget}. The file's {@code entities.NAME} applies to the entity
 * bean of type {@code NAME}; a bean and the file that say different things stop the start, naming both, so the budget
 * the check passed is the one the service meters and caches by.
 */
final class UnitasBudgets implements SmartInitializingSingleton {

    static final String PROPERTY = "unitas.consistency.declarations";

    /** The file's entity declarations by name; empty without a file. */
    private final Map<String, Declaration> declared;
    private final Supplier<List<UnitasEntity<?>>> entities;

    UnitasBudgets(Map<String, Declaration> declared, Supplier<List<UnitasEntity<?>>> entities) {
        this.declared = Map.copyOf(declared);
        this.entities = entities;
    }

    /**
     * The file's entity declarations at {@code location} (own form or OpenAPI; only its {@code entities} name entity
     * types), or none for a blank location.
     */
    static Map<String, Declaration> read(ResourceLoader loader, String location) {
        if (location == null || location.isBlank()) {
            return Map.of();
        }
        try {
            Map<String, Declaration> entities = new LinkedHashMap<>();
            for (Declaration d : ConsistencyFile.parse(UnitasFiles.read(loader, PROPERTY, location)).declarations()) {
                if (d.where().path().startsWith("entities.")) {
                    entities.put(d.name(), d);
                }
            }
            return entities;
        } catch (ConfigException bad) {
            throw new UnitasConfigurationException(bad.problems());
        }
    }

    // The entity beans exist by now (reading them earlier could close a cycle through the service's repositories).
    @Override
    public void afterSingletonsInstantiated() {
        byType();
    }

    /** The budget of each entity bean that has one, by type, in the beans' order; conflicts stop the start. */
    Map<String, Duration> byType() {
        Map<String, Duration> budgets = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (UnitasEntity<?> entity : entities.get()) {
            if (budgets.containsKey(entity.type())) {
                continue;
            }
            Declaration d = declared.get(entity.type());
            Optional<Duration> own = entity.stalenessBudget();
            if (d == null) {
                own.ifPresent(b -> budgets.put(entity.type(), b));
            } else if (d.level() != ConsistencyLevel.BOUNDED_STALENESS) {
                own.ifPresent(b -> problems.add(d.at("consistency") + ": " + entity.type() + " is " + d.level().label()
                                                + ", but its UnitasEntity bean declares stalenessBudget("
                                                + DurationFormat.format(b) + ") (expected: one declaration; "
                                                + "remove the bean's budget or make the file bounded-staleness)"));
            } else if (own.isPresent() && !own.get().equals(d.budget())) {
                problems.add(d.at("staleness_budget") + ": " + DurationFormat.format(d.budget()) + ", but the "
                             + "UnitasEntity bean '" + entity.type() + "' declares stalenessBudget("
                             + DurationFormat.format(own.get()) + ") (expected: one budget; declare it in one place)");
            } else {
                budgets.put(entity.type(), d.budget());
            }
        }
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        return budgets;
    }
}
