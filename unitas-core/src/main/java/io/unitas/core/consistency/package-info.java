/**
 * The consistency contract and its check (seed 003, chapter 5): each service or entity declares its kind, its
 * consistency level, whether it handles money or legal records, whether its operations are idempotent, its merge
 * policy and its residency group, and {@link io.unitas.core.consistency.ConsistencyCheck} finds every declaration
 * that the CAP decision tree, the topology or the measured replication lag contradicts. Pure: the readers of the
 * files live in {@code unitas-config}, the command in {@code unitas-cli}.
 */
package io.unitas.core.consistency;
