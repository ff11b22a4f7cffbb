/**
 * A client of the unitas control plane's HTTP API ({@link io.unitas.control.client.ControlClient}): requests with
 * the bearer token, and the watch stream of states (server-sent events) that resumes after the last revision it
 * delivered. It needs only the JDK and Jackson, so gateways and services can follow the control plane without
 * carrying the control plane's store and server. The requests and answers are the records of
 * {@link io.unitas.control.client.wire}, which the server reads its request bodies into as well.
 */
package io.unitas.control.client;
