/**
 * The unit-aware HTTP gateway: {@link io.unitas.gateway.Gateway} runs it from a
 * {@link io.unitas.gateway.GatewayConfig} ({@code gateway.yaml}). Per request it finds the unit and home region
 * with the core's unit rules, asks the core's router for the serving region under the current health, applies
 * write fences and gray versions, and streams the request to that region's upstreams. Everything else in the
 * package is its implementation.
 */
package io.unitas.gateway;
