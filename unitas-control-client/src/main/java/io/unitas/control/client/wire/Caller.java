package io.unitas.control.client.wire;

/**
 * {@code GET /api/v1/whoami}: the caller's token name and role.
 *
 * @param name the token's name, as the audit log names it
 * @param role {@code viewer}, {@code observer}, {@code reporter}, {@code operator} or {@code admin}
 */
public record Caller(String name, String role) {}
