package io.unitas.health;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;

import io.unitas.core.health.ProbeResult;

/** Probes that a TCP connection to {@code host:port} is accepted within the timeout. */
final class TcpProbe implements Probe {

    private final Endpoint endpoint;

    TcpProbe(ProbeConfig config) {
        this.endpoint = Endpoint.parseHostPort(config.target(), "tcp");
    }

    @Override
    public ProbeResult probe(Duration timeout) {
        long start = Latency.start();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), (int) Math.max(1, timeout.toMillis()));
            return ProbeResult.up(Latency.since(start), "connected", -1, java.util.Map.of());
        } catch (IOException e) {
            return ProbeResult.down(Latency.since(start), ProbeFailure.reason(e, endpoint.address(), timeout));
        }
    }
}
