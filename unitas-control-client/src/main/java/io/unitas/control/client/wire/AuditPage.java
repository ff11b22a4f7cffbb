package io.unitas.control.client.wire;

import java.util.List;

/**
 * {@code GET /api/v1/audit}: audit entries, oldest first.
 *
 * @param entries the entries after the sequence number asked for, at most the limit asked for
 */
public record AuditPage(List<Entry> entries) {

    public AuditPage {
        entries = List.copyOf(entries);
    }

    /**
     * One audited change or refusal.
     *
     * @param seq     its sequence number
     * @param at      when (RFC 3339)
     * @param actor   the token's name ({@code anonymous} without one)
     * @param action  what was asked ({@code fence.add}, {@code switchover.step}, ...)
     * @param target  what it was about
     * @param outcome {@code applied}, {@code refused:<kind>}, ...
     * @param detail  what happened, in words
     * @param reason  the reason given ({@code ""}: none)
     */
    public record Entry(long seq, String at, String actor, String action, String target, String outcome,
                        String detail, String reason) {}
}
