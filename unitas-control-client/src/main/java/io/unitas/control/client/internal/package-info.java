/**
 * Not promised: how the wire records are read from and written to JSON, shared by the control plane's server and
 * its client. It may change in any release.
 */
package io.unitas.control.client.internal;
