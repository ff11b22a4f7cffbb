package io.unitas.playground;

import com.fasterxml.jackson.databind.JsonNode;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.ControlException;
import io.unitas.control.client.internal.WireJson;
import io.unitas.control.client.wire.DocumentText;
import io.unitas.control.client.wire.SwitchoverRequest;
import io.unitas.core.Region;
import java.time.Duration;
import java.util.List;

/**
 * The control plane's failover policy as a unitas drill sets it, scaled to the drill's length (for 40 s: after 0.5 s,
 * each switchover's deadline 1 s, promotion after 2 s): the faulted region's units move to their fallback by
 * themselves once it stays unable to take writes for {@code after} (a switchover waiting on their measured lag
 * while it still reports), and are promoted with their RPO recorded after {@code promote_after} (it cannot ship, or
 * is gone). After the drill the policy is removed and the units are switched back home, so the next drill on the
 * same playground starts from the layout's homes.
 */
final class DrillFailover {

    private final Duration after;
    private final Duration timeout;
    private final Duration promoteAfter;
    private final Region faulted;
    private final ControlClient admin;

    DrillFailover(Playground p, Region faulted, Duration drill) {
        this(ControlClient.of(p.control(), p.adminToken()), faulted, drill);
    }

    /** The same policy on any control plane (the process deployment's), through its admin's client. */
    DrillFailover(ControlClient admin, Region faulted, Duration drill) {
        this.after = atLeast(Duration.ofMillis(500), drill.dividedBy(80));
        this.timeout = atLeast(Duration.ofSeconds(1), drill.dividedBy(40));
        // The naive setup's operator takes its DNS switch a twentieth of the drill after the fault: the policy waits
        // as long before it promotes (no less than a switchover's attempt, after + timeout), counted from cn's first
        // report of the fault, or from its last report when it falls silent.
        this.promoteAfter = atLeast(after.plus(timeout), drill.dividedBy(20));
        this.faulted = faulted;
        this.admin = admin;
    }

    /** The policy's timings, for a progress line. */
    String describe() {
        return "after " + after.toMillis() + " ms, switchover timeout " + timeout.toMillis() + " ms, promote after "
               + promoteAfter.toMillis() + " ms";
    }

    /** Sets the policy: the faulted region's units automatic, the others off. */
    void enable() {
        replace("{\"groups\":[{\"name\":\"drill-" + faulted.id() + "\",\"home\":\"" + faulted.id()
                + "\",\"mode\":\"automatic\",\"after\":\"" + after.toMillis() + "ms\",\"promote_after\":\""
                + promoteAfter.toMillis() + "ms\",\"timeout\":\"" + timeout.toMillis() + "ms\"}]}");
    }

    /**
     * The RPO the last move of the faulted region's unit recorded: its lag in milliseconds when it was promoted, 0
     * when a switchover drained it, -1 when it did not move.
     */
    long rpoMillis() {
        JsonNode s = WireJson.tree(admin.state().json()).path("switchover");
        String unit = Layout.unitOf(faulted);
        if (!s.path("phase").asText().equals("completed") || !contains(s.path("units"), unit)) {
            return -1;
        }
        return s.path("rpo_ms").path(unit).asLong(0);
    }

    /**
     * Removes the policy and, when the faulted region's unit lives elsewhere, switches it back home (waiting on its
     * measured lag); returns what did not work, empty when all did.
     */
    String restore(Duration timeout) {
        replace("{\"groups\":[]}");
        String unit = Layout.unitOf(faulted);
        JsonNode units = WireJson.tree(admin.state().json()).path("rules").path("units");
        if (faulted.id().equals(homeOf(units, unit))) {
            return "";
        }
        long end = System.nanoTime() + timeout.plusSeconds(10).toNanos();
        SwitchoverRequest back = SwitchoverRequest.move(List.of(unit), faulted.id()).withTimeout(timeout)
                                                  .withForce(true).withReason("drill over: back home");
        // A unit that has just moved may not move again until the control plane's cooldown ends: ask again.
        while (true) {
            try {
                admin.startSwitchover(back);
                break;
            } catch (ControlException e) {
                if (e.status() != 409 || !e.problem().detail().contains("cooldown") || System.nanoTime() >= end) {
                    return "switching " + unit + " back to " + faulted + " was refused: " + e.getMessage();
                }
            }
            pause();
        }
        while (System.nanoTime() < end) {
            JsonNode s = WireJson.tree(admin.state().json()).path("switchover");
            String phase = s.path("phase").asText();
            if (phase.equals("completed")) {
                return "";
            }
            if (phase.equals("rolled_back") || phase.equals("aborted")) {
                return "switching " + unit + " back to " + faulted + " " + phase + ": " + s.path("outcome").asText();
            }
            pause();
        }
        return "switching " + unit + " back to " + faulted + " did not end within " + timeout.toSeconds() + " s";
    }

    private void replace(String json) {
        // Health reports move the revision on all the time: a stale If-Match is read again and retried, for a while
        // rather than a number of times (a loaded machine saw more than 20 reports land between a read and a write).
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (true) {
            try {
                admin.replaceFailover(DocumentText.json(json), admin.state().revision(), "");
                return;
            } catch (ControlException e) {
                if (e.status() != 412 || System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("control plane refused the drill's failover policy: "
                                                    + e.getMessage(), e);
                }
            }
        }
    }

    /** The region of {@code unit} in the rules' {@code units} (a list of {id, region}). */
    private static String homeOf(JsonNode units, String unit) {
        for (JsonNode u : units) {
            if (u.path("id").asText().equals(unit)) {
                return u.path("region").asText();
            }
        }
        return "";
    }

    private static Duration atLeast(Duration floor, Duration d) {
        return d.compareTo(floor) < 0 ? floor : d;
    }

    private static boolean contains(JsonNode list, String value) {
        for (JsonNode n : list) {
            if (n.asText().equals(value)) {
                return true;
            }
        }
        return false;
    }

    private static void pause() {
        try {
            Thread.sleep(100); // polling the control plane's state, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
