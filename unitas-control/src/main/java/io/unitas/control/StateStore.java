package io.unitas.control;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where the control-plane state and the audit log live. A commit is compare-and-set on the revision: it lands
 * only if no other change landed since the caller read {@code expectedRevision}, and it is durable before this
 * method returns. Every replica's listeners see every landed state in revision order.
 */
interface StateStore extends AutoCloseable {

    /** The newest state this replica knows. */
    ControlState current();

    /**
     * Stores {@code next} if its revision is the current one plus one, durably; returns it, or empty if another
     * change landed first (the caller re-reads and decides again).
     */
    Optional<ControlState> commit(ControlState next);

    /** Calls {@code listener} with every state that lands from now on, in revision order. */
    void subscribe(Consumer<ControlState> listener);

    /** Appends to the audit log, durably; returns the entry with its sequence number. */
    AuditEntry audit(AuditEntry entry);

    /** The newest {@code limit} audit entries with a sequence number above {@code afterSeq}, oldest first. */
    List<AuditEntry> audit(long afterSeq, int limit);

    /** Whether this replica is the one that runs switchovers and freshness updates. */
    boolean leader();

    @Override
    void close();
}
