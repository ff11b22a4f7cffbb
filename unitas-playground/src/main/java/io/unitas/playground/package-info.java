/**
 * The playground: a demo shop that uses the unitas data layer the way any service would, a launcher that runs
 * several regions of it in one process behind the control plane, health agents and gateways, and drills that
 * inject the seed incident's faults under load and count what users would have seen.
 */
package io.unitas.playground;
