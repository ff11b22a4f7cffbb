package io.unitas.data.saga;

/**
 * Test hook, not API: a crash point at each persisted boundary of a coordinator, numbered from 1 per coordinator
 * (after each commit, and after each step's effect before its result is recorded).
 */
@FunctionalInterface
interface SagaBoundaries {

    SagaBoundaries NONE = (n, what) -> {};

    /** Called at boundary {@code n}, described by {@code what}; throwing from it simulates a crash there. */
    void reached(int n, String what);
}
