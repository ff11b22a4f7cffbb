/**
 * The control plane's requests and answers as records, shared by the server (which reads requests into them) and
 * {@link io.unitas.control.client.ControlClient} (which sends them and returns the answers). Durations are in the
 * one grammar of unitas files and commands ({@code 500ms}, {@code 30s}, {@code 2m}).
 */
package io.unitas.control.client.wire;
