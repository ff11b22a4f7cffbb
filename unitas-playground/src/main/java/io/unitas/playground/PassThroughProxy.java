package io.unitas.playground;

import com.linecorp.armeria.client.Endpoint;
import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.client.endpoint.EndpointGroup;
import com.linecorp.armeria.client.endpoint.EndpointSelectionStrategy;
import com.linecorp.armeria.common.SessionProtocol;
import com.linecorp.armeria.server.Server;
import java.time.Duration;
import java.util.List;

/**
 * The naive setup's entry to a region: a plain L7 proxy that passes every request to the region's shops in turn,
 * knowing nothing of units, homes or deep health (a load balancer with process-only checks: a shop that refuses
 * connections fails its requests). It stands where unitas has its gateway, so both setups' clients pay one hop.
 */
final class PassThroughProxy implements AutoCloseable {

    private final Server server;

    private PassThroughProxy(Server server) {
        this.server = server;
    }

    /** Listens on {@code port} of loopback, passing requests to the shops on {@code shopPorts}. */
    static PassThroughProxy start(int port, List<Integer> shopPorts, Duration timeout) {
        EndpointGroup shops = EndpointGroup.of(EndpointSelectionStrategy.roundRobin(),
                                               shopPorts.stream().map(p -> Endpoint.of("127.0.0.1", p)).toList());
        WebClient client = WebClient.builder(SessionProtocol.H1C, shops).responseTimeout(timeout).build();
        Server server = Server.builder().localPort(port, SessionProtocol.HTTP).requestTimeout(timeout.plusSeconds(1))
                              .serviceUnder("/", (ctx, req) -> client.execute(req)).build();
        server.start().join();
        return new PassThroughProxy(server);
    }

    @Override
    public void close() {
        server.stop().join();
    }
}
