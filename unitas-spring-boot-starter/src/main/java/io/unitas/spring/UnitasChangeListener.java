package io.unitas.spring;

/**
 * Told of every change the data layer makes in this region: a local one appended to {@link UnitasOutbox} (after its
 * transaction commits) and another region's applied by the starter's applier (in the applier's transaction, before
 * it commits). The cache's invalidations are one; a listener must not throw and must not block.
 */
@FunctionalInterface
interface UnitasChangeListener {

    /** Entity {@code key} of {@code entityType} changed to what {@code payload} encodes. */
    void changed(String entityType, String key, byte[] payload);
}
