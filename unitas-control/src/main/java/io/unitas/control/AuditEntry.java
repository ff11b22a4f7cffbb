package io.unitas.control;

import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One line of the audit log: who did what to which target, when, why, with what outcome, and the revision it
 * produced (0 when refused or when nothing changed). Refusals are recorded as well as changes; repeated refusals
 * of one actor and action are written once per window, then once more with how many followed.
 *
 * @param seq      position in the log, assigned by the store
 * @param at       when it happened (for an aggregate: the last of them)
 * @param actor    the token's name, or {@code anonymous}, or {@code control} for the control plane itself
 * @param action   what was asked ({@code topology.replace}, {@code fence.add}, {@code switchover.step})
 * @param target   what it was asked of ({@code topology}, a unit, a region, a switchover id)
 * @param outcome  {@code ok}, {@code unauthenticated}, {@code forbidden}, {@code invalid}, {@code stale},
 *                 {@code refused}, {@code conflict}
 * @param reason   why the actor asked (the {@code reason} they gave), empty if none
 * @param revision the revision the change produced, 0 if none
 * @param detail   what changed or why it was refused
 * @param count    how many requests this entry stands for: 1, or the number aggregated into it
 * @param client   the address the request came from (an aggregate's: its last), empty for the control plane's own
 *                 changes and for entries written before addresses were recorded
 */
record AuditEntry(long seq, Instant at, String actor, String action, String target, String outcome, String reason,
                  long revision, String detail, long count, String client) {

    /** One request's entry, its client not yet known. */
    AuditEntry(long seq, Instant at, String actor, String action, String target, String outcome, String reason,
               long revision, String detail) {
        this(seq, at, actor, action, target, outcome, reason, revision, detail, 1, "");
    }

    AuditEntry withSeq(long next) {
        return new AuditEntry(next, at, actor, action, target, outcome, reason, revision, detail, count, client);
    }

    /** The entry as sent from {@code address}. */
    AuditEntry withClient(String address) {
        return new AuditEntry(seq, at, actor, action, target, outcome, reason, revision, detail, count, address);
    }

    /** The entry with its caller-chosen texts cut to {@code reasonChars} and the rest to {@code detailChars}. */
    AuditEntry capped(int reasonChars, int detailChars) {
        return new AuditEntry(seq, at, cut(actor, detailChars), cut(action, detailChars), cut(target, detailChars),
                              cut(outcome, detailChars), cut(reason, reasonChars), revision, cut(detail, detailChars),
                              count, cut(client, detailChars));
    }

    private static String cut(String text, int chars) {
        if (text.length() <= chars) {
            return text;
        }
        // the suffix for the whole length is at least as long as the one for what is dropped
        int keep = Math.max(0, chars - ("… (" + text.length() + " more characters)").length());
        if (keep > 0 && Character.isHighSurrogate(text.charAt(keep - 1))) {
            keep--;
        }
        return text.substring(0, keep) + "… (" + (text.length() - keep) + " more characters)";
    }

    ObjectNode toJson() {
        return StateJson.MAPPER.createObjectNode().put("seq", seq).put("at", at.toString()).put("actor", actor)
                               .put("action", action).put("target", target).put("outcome", outcome)
                               .put("reason", reason).put("revision", revision).put("detail", detail)
                               .put("count", count).put("client", client);
    }

    static AuditEntry fromJson(JsonNode o) {
        return new AuditEntry(o.path("seq").asLong(), Instant.parse(o.path("at").asText()), o.path("actor").asText(),
                              o.path("action").asText(), o.path("target").asText(), o.path("outcome").asText(),
                              o.path("reason").asText(), o.path("revision").asLong(), o.path("detail").asText(),
                              o.path("count").asLong(1), o.path("client").asText(""));
    }
}
