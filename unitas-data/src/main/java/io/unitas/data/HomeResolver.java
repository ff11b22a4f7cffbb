package io.unitas.data;

import io.unitas.core.Region;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitLookup;
import io.unitas.core.rules.UnitRules;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What "home" is for a key: the unit that owns it and the region that unit lives in now. The data layer asks this
 * on every call, so a switchover that moves a unit moves its reads and idempotency records with it. Implementations
 * must not block: they run on the request path.
 */
@FunctionalInterface
public interface HomeResolver {

    /**
     * Homes by the unit rules: the key is looked up as if {@code source} had yielded it, and its unit's home is the
     * home in the rules {@code rules} supplies now (supply {@link UnitRules#remap remapped} rules after a switchover).
     */
    static HomeResolver rules(Supplier<UnitRules> rules, KeySource source) {
        return rules(rules, source, unit -> Optional.empty());
    }

    /**
     * Homes by the unit rules, with the home region of a unit taken from {@code homes} when it names one (the
     * control plane's live unit-to-region map), else from the rules.
     */
    static HomeResolver rules(Supplier<UnitRules> rules, KeySource source,
                              Function<Unit, Optional<Region>> homes) {
        Objects.requireNonNull(rules, "rules");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(homes, "homes");
        return key -> {
            UnitLookup lookup = rules.get().lookupKey(source, key);
            Unit unit = lookup.unit();
            if (unit == null) {
                return Home.none(key, "'" + key + "' has no unit (" + lookup.outcome().reason() + ")");
            }
            return Home.of(key, unit.id(), homes.apply(unit).orElse(unit.home()));
        };
    }

    /** Every key at home in {@code region}, in one unit named after it: a single-region service, or a test. */
    static HomeResolver always(Region region) {
        Objects.requireNonNull(region, "region");
        return key -> Home.of(key, region.id(), region);
    }

    /** The home of {@code key}; never {@code null}, {@link Home#none} when no unit owns it. */
    Home home(String key);
}
