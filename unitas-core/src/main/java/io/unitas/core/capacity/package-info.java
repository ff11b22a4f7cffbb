/**
 * Capacity planning on top of the route decision, as pure functions: the load each region would carry, which
 * regions would be overloaded, the cascade that follows when overloaded regions trip, and a deterministic
 * spillover placement that keeps regions under capacity. Entry point: {@link io.unitas.core.capacity.CapacityPlanner}.
 */
package io.unitas.core.capacity;
