package io.unitas.spring;

import io.unitas.data.remote.HomeReadClient;

/**
 * The other regions' home-read servers ({@code unitas.readiness.home-reads.endpoints}), reached through one
 * {@link HomeReadClient} shared by the reading side ({@link UnitasReadiness}) and idempotency claims, closed with the
 * application. Without endpoints there is no client, and nothing is read or claimed over the network.
 */
final class HomeReadPeers implements AutoCloseable {

    private final HomeReadClient client;

    HomeReadPeers(HomeReadClient client) {
        this.client = client;
    }

    /** The client, or {@code null} when no peer is configured. */
    HomeReadClient client() {
        return client;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
    }
}
