package io.unitas.control.client.wire;

/**
 * {@code POST /api/v1/health/{region}/unreachable}'s answer: whether the report counted as evidence.
 *
 * @param region   the region reported unreachable
 * @param observer the region that cannot reach it
 * @param counted  whether it counted (a region's report about itself does not)
 * @param detail   why, in words
 */
public record Evidence(String region, String observer, boolean counted, String detail) {}
