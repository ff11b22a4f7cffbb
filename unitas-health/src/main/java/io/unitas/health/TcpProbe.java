package io.unitas.health;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

import io.unitas.core.health.ProbeResult;

/** Probes that a TCP connection to {@code host:port} is accepted within the timeout. */
final class TcpProbe implements Probe {

    private static final String FORM = "host:port or tcp://host:port";

    private final Endpoint endpoint;

    TcpProbe(ProbeConfig config) {
        String target = config.target().contains("://") ? config.target() : "tcp://" + config.target();
        this.endpoint = Endpoint.parse(target, List.of("tcp"), -1, FORM);
        if (endpoint.port() < 0) {
            throw new IllegalArgumentException("target: '" + config.target() + "' (expected: " + FORM + ")");
        }
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
