package io.unitas.control.client.state;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

import io.unitas.control.client.ControlClient;
import io.unitas.core.fence.Writes;

/**
 * Where a follower of the control plane (a gateway, a DNS server) takes its routing state from: the control plane's
 * watch stream, or files on disk. Read from a configuration file by {@link StateSourceReader}.
 */
public sealed interface StateSource permits StateSource.ControlPlane, StateSource.StaticFiles {

    /** The feed that publishes this source's state; {@code writes} says which requests a fence refuses. */
    default StateFeed feed(Writes writes) {
        return feed(writes, true);
    }

    /**
     * As {@link #feed(Writes)}; with {@code unitRules} false unit rules are not required, from the control plane's
     * state or from files, and are read only where there are some (a follower that routes regions, not users: DNS,
     * which spills a down region's clients over by the units' loads).
     */
    default StateFeed feed(Writes writes, boolean unitRules) {
        if (this instanceof ControlPlane cp) {
            return new ControlPlaneFeed(cp, writes, unitRules);
        }
        return new StaticFilesFeed((StaticFiles) this, writes);
    }

    /**
     * Rules, health and fences arrive over a control plane's watch stream; the last good state is kept in
     * {@code stateFile} and served from while the control plane is away.
     *
     * @param url           the control plane's base URL
     * @param token         the bearer token, or empty
     * @param tokenFile     a file holding the bearer token, followed (re-read when it changes), or {@code null}
     * @param stateFile     where the last good state is kept
     * @param ca            a PEM file of the certificate authorities to trust for {@code https://}, or {@code null}
     *                      for the JDK's
     * @param allowInsecure whether {@code http://} to a host other than loopback is allowed
     */
    record ControlPlane(String url, String token, Path tokenFile, Path stateFile, Path ca,
                        boolean allowInsecure) implements StateSource {

        /**
         * The control plane's client: its token (the file's, followed, when there is one), its CA and whether
         * cleartext to another host is allowed; refuses what may not be used, naming it.
         */
        public ControlClient client() {
            ControlClient.Builder b = ControlClient.builder(URI.create(url)).ca(ca).allowInsecure(allowInsecure);
            if (tokenFile != null) {
                b.token(new FollowedToken(tokenFile));
            } else {
                b.token(token);
            }
            return b.build();
        }
    }

    /**
     * Topology, rules, health and fences come from files, reloaded when they change.
     *
     * @param topology       the topology file
     * @param rules          the unit rules file, or {@code null} for no units (a follower that routes regions only)
     * @param health         the region health file
     * @param fences         the write fences file, or {@code null} for none
     * @param reloadInterval how often the files are checked for changes
     */
    record StaticFiles(Path topology, Path rules, Path health, Path fences, Duration reloadInterval)
            implements StateSource {
    }
}
