/**
 * The unitas model and its decisions as pure functions: regions, topology, health snapshots and the route
 * decision. Nothing here performs I/O, reads a clock that was not handed in, or depends on a library.
 */
package io.unitas.core;
