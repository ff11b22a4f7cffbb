package io.unitas.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.unitas.core.RegionHealth;

/**
 * A source of reasons in {@code /actuator/health/unitas} beside the region's own health: open conflicts, an entity's
 * replication lag over its staleness budget. A bean of this type is asked on every health read; a reason that gates
 * turns the component's status to its own (the worse one wins).
 */
@FunctionalInterface
interface UnitasHealthReasons {

    /** The reasons now, none when all is well. Must not throw: a source that cannot tell says so as a reason. */
    List<Reason> reasons();

    /** What a reason does to the status, from the mildest to the worst. */
    enum Effect {
        /** Listed; the status stays as the region's health has it. */
        REPORT,
        /** {@code OUT_OF_SERVICE}: readiness takes the instance out. */
        OUT_OF_SERVICE,
        /** {@code DOWN}. */
        DOWN
    }

    /**
     * One reason.
     *
     * @param text   one line: what, where, and what was expected
     * @param effect what it does to the status
     */
    record Reason(String text, Effect effect) {

        /** Requires both. */
        public Reason {
            Objects.requireNonNull(text, "text");
            Objects.requireNonNull(effect, "effect");
        }
    }

    /**
     * The region's health component as every Boot version shows it: {@link Effect#REPORT} (UP) while the region is
     * healthy in the routing state, {@link Effect#OUT_OF_SERVICE} while it is down, made worse by any reason that
     * gates; and every reason's line.
     */
    record Verdict(Effect effect, List<String> reasons) {

        static Verdict of(RegionHealth region, List<UnitasHealthReasons> sources) {
            Effect worst = region.healthy() ? Effect.REPORT : Effect.OUT_OF_SERVICE;
            List<String> lines = new ArrayList<>();
            for (UnitasHealthReasons source : sources) {
                for (Reason r : source.reasons()) {
                    lines.add(r.text());
                    worst = r.effect().compareTo(worst) > 0 ? r.effect() : worst;
                }
            }
            return new Verdict(worst, List.copyOf(lines));
        }
    }
}
