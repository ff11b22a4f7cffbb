/**
 * Unit rules: how a request finds its unit (routing key from a header, cookie, query parameter, path segment, domain
 * prefix or a custom {@link io.unitas.core.rules.UnitStrategy}; a {@link io.unitas.core.rules.KeyTransform}; key
 * ranges to units) and each unit's home region. {@link io.unitas.core.rules.UnitRules} validates a rule set as a whole against
 * a {@link io.unitas.core.Topology} and answers {@link io.unitas.core.rules.UnitRules#lookup} without I/O.
 */
package io.unitas.core.rules;
