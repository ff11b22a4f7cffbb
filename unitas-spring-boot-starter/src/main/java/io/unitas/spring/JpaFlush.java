package io.unitas.spring;

import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Flushes the persistence contexts bound to the current transaction, so the service's JPA writes reach the database
 * (and take their row locks) before the outbox takes the change's position: the lock orders an entity's changes.
 * Loaded only when spring-orm and JPA are on the class path.
 */
final class JpaFlush {

    private JpaFlush() {}

    static void flushBound() {
        for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
            if (resource instanceof EntityManagerHolder holder && holder.getEntityManager().isJoinedToTransaction()) {
                holder.getEntityManager().flush();
            }
        }
    }
}
