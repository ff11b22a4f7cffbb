package io.unitas.control;

import java.util.Objects;

import io.unitas.core.switchover.Switchover;
import io.unitas.core.switchover.SwitchoverPlan;

/**
 * What a change asked of {@link ControlService} came to: applied as a new revision, planned only (a dry run),
 * refused because the revision it was based on is stale, refused for another reason, or nothing to do.
 */
sealed interface ChangeResult {

    /**
     * The change landed as {@code revision}.
     *
     * @param revision   the revision it produced
     * @param plan       the plan of a started switchover, or null
     * @param switchover the switchover started or aborted, or null
     */
    record Applied(long revision, SwitchoverPlan plan, Switchover switchover) implements ChangeResult {
        static Applied at(long revision) {
            return new Applied(revision, null, null);
        }
    }

    /** A dry run's accepted plan, computed against {@code revision}; nothing was changed. */
    record Planned(SwitchoverPlan plan, long revision) implements ChangeResult {
        public Planned {
            Objects.requireNonNull(plan, "plan");
        }
    }

    /** The change named revision {@code expected} but the state is at {@code current}; nothing was changed. */
    record PreconditionFailed(long expected, long current) implements ChangeResult {
        /** The refusal as the audit log and the API say it. */
        Refusal refusal() {
            return Refusal.of(Refusal.Kind.STALE_REVISION, "If-Match: revision " + expected
                              + " is stale (current: " + current + ")");
        }
    }

    /** The change was refused; nothing was changed. */
    record Refused(Refusal refusal) implements ChangeResult {
        public Refused {
            Objects.requireNonNull(refusal, "refusal");
        }
    }

    /** Nothing needed changing (the leader's tick when nothing aged or advanced). */
    record Unchanged() implements ChangeResult {}
}
