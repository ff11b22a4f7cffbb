package io.unitas.core.rules;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * A custom way to place a request in a unit (seed 004's "custom region strategy"), found with
 * {@link ServiceLoader}: list the implementation's class name in
 * {@code META-INF/services/io.unitas.core.rules.UnitStrategy}, and select it in the rules file with a key source
 * {@code {strategy: NAME}}. Implementations must be thread-safe, fast and free of I/O: lookups call them per request.
 */
public interface UnitStrategy {

    /** The name a rules file selects this strategy by; unique among installed strategies. */
    String name();

    /**
     * The id of the unit {@code request} belongs to, or {@code null} when this strategy cannot tell (the next key
     * source is asked then). Must not throw.
     */
    String unitFor(RequestView request);

    /**
     * The strategies installed on the class path of {@code loader}, by name, in discovery order. The first of two
     * with the same name wins.
     */
    static Map<String, UnitStrategy> installed(ClassLoader loader) {
        Map<String, UnitStrategy> byName = new LinkedHashMap<>();
        for (UnitStrategy strategy : ServiceLoader.load(UnitStrategy.class, loader)) {
            byName.putIfAbsent(strategy.name(), strategy);
        }
        return java.util.Collections.unmodifiableMap(byName);
    }

    /** The strategies installed where this interface was loaded from; see {@link #installed(ClassLoader)}. */
    static Map<String, UnitStrategy> installed() {
        return installed(UnitStrategy.class.getClassLoader());
    }
}
