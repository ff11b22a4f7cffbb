package io.unitas.core.crdt;

/** How two version vectors relate: one happened before the other, they are equal, or they are concurrent. */
public enum Causality {
    /** Every entry of the left is at most the right's, and one is smaller: the left happened before. */
    BEFORE,
    /** The mirror of {@link #BEFORE}: the left happened after. */
    AFTER,
    /** Both have the same entries. */
    EQUAL,
    /** Each has an entry larger than the other's: neither saw the other's latest write. */
    CONCURRENT
}
