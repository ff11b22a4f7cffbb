package io.unitas.resolver;

import static io.unitas.resolver.ResolverTest.ip;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import com.sun.net.httpserver.HttpServer;
import io.unitas.core.endpoint.EndpointState;
import io.unitas.resolver.DnsResponder.Srv;
import io.unitas.testkit.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The java.net.http helper against real HTTP servers on loopback, found through a real DNS peer. */
class UnitasHttpTest {

    static final ServiceName API = ServiceName.srv("_api._tcp.shop.example", 8443);

    final HttpClient client = HttpClient.newHttpClient();
    HttpServer a;
    HttpServer b;
    DnsResponder dns;
    UnitasResolver resolver;

    HttpServer server(String name) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(ip("127.0.0.1"), Ports.free()), 0);
        s.createContext("/whoami", x -> {
            byte[] body = (name + " " + x.getRequestURI()).getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        s.start();
        return s;
    }

    @AfterEach
    void stop() {
        if (resolver != null) {
            resolver.close();
        }
        if (dns != null) {
            dns.close();
        }
        for (HttpServer s : new HttpServer[] {a, b}) {
            if (s != null) {
                s.stop(0);
            }
        }
    }

    String get(UnitasHttp http, String key) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://api.shop.example/whoami?x=1")).build();
        return http.send(API, req, key, HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void aKeyStaysOnOneEndpoint_requestsWithoutOneSpread() throws Exception {
        a = server("a");
        b = server("b");
        dns = new DnsResponder().srv("_api._tcp.shop.example",
                        new Srv(10, 50, a.getAddress().getPort(), "a.shop.example"),
                        new Srv(10, 50, b.getAddress().getPort(), "b.shop.example"))
                .a("a.shop.example", ip("127.0.0.1")).a("b.shop.example", ip("127.0.0.1"));
        resolver = UnitasResolver.builder().dnsServer(dns.address()).build();
        UnitasHttp http = UnitasHttp.of(client, resolver);
        String first = get(http, "user-42");
        assertThat(first).endsWith(" /whoami?x=1");
        for (int i = 0; i < 20; i++) {
            assertThat(get(http, "user-42")).isEqualTo(first);
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            seen.add(get(http, null));
        }
        assertThat(seen).containsExactlyInAnyOrder("a /whoami?x=1", "b /whoami?x=1");
    }

    @Test
    void refusedConnections_makeAnEndpointUnhealthy_andRequestsGoElsewhere() throws Exception {
        a = server("a");
        int closed = Ports.free();
        dns = new DnsResponder().srv("_api._tcp.shop.example",
                        new Srv(10, 50, a.getAddress().getPort(), "a.shop.example"),
                        new Srv(10, 50, closed, "gone.shop.example"))
                .a("a.shop.example", ip("127.0.0.1")).a("gone.shop.example", ip("127.0.0.1"));
        resolver = UnitasResolver.builder().dnsServer(dns.address()).build();
        UnitasHttp http = UnitasHttp.of(client, resolver);
        int refused = 0;
        for (int i = 0; i < 200 && state(closed) != EndpointState.UNHEALTHY; i++) {
            try {
                get(http, null);
            } catch (ConnectException e) {
                refused++;
            }
        }
        assertThat(refused).isEqualTo(3);
        for (int i = 0; i < 30; i++) {
            assertThat(get(http, null)).startsWith("a ");
        }
    }

    EndpointState state(int port) {
        return resolver.resolve(API).join().endpoints().stream().filter(e -> e.address().getPort() == port)
                .findFirst().orElseThrow().state();
    }
}
