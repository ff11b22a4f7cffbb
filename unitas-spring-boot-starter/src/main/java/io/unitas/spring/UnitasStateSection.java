package io.unitas.spring;

/**
 * A section of {@code /actuator/unitas} beside the routing state: a bean of this type is asked on every read and its
 * answer shown under its name.
 */
interface UnitasStateSection {

    /** The section's key in the endpoint's answer. */
    String name();

    /** What the section shows now (a map, list or value Jackson writes). Must not throw. */
    Object describe();
}
