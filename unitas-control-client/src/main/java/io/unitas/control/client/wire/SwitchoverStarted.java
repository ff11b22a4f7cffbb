package io.unitas.control.client.wire;

import java.util.Optional;

/**
 * {@code POST /api/v1/switchovers}'s answer: the plan, and the switchover it started (none for a dry run).
 *
 * @param plan       the plan
 * @param switchover the started switchover; empty for a dry run
 * @param revision   the revision that holds it (for a dry run: the revision it was planned against)
 */
public record SwitchoverStarted(PlanView plan, Optional<SwitchoverView> switchover, long revision) {}
