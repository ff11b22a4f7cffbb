package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;

/** Every audit entry of a request says where it came from: changes, refusals, anonymous guesses alike. */
class AuditClientAddressTest {

    @TempDir
    Path dir;

    @Test
    void auditEntries_recordTheClientAddress_ofChangesAndOfRefusals() throws Exception {
        try (ControlServer server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir))
                                                 .start()) {
            RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
            Fixtures.seed(admin, Instant.now(), 50); // from 127.0.0.1

            // an anonymous change from another loopback address: refused, and audited with that address
            try (Socket other = new Socket()) {
                other.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
                other.connect(new InetSocketAddress("127.0.0.1", server.port()));
                OutputStream out = other.getOutputStream();
                out.write(("PUT /api/v1/rules HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
                           + "Connection: close\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = other.getInputStream();
                assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 401");
            }

            JsonNode entries = admin.get("/api/v1/audit?after=" + 0 + "&limit=" + 1000).json().path("entries");
            assertThat(entries).isNotEmpty();
            JsonNode topology = find(entries, "topology.replace", "ok");
            assertThat(topology.path("client").asText()).isEqualTo("127.0.0.1");
            JsonNode anonymous = find(entries, "rules.replace", "unauthenticated");
            assertThat(anonymous.path("actor").asText()).isEqualTo("anonymous");
            assertThat(anonymous.path("client").asText()).isEqualTo("127.0.0.2");
        }
    }

    private static JsonNode find(JsonNode entries, String action, String outcome) {
        for (JsonNode e : entries) {
            if (e.path("action").asText().equals(action) && e.path("outcome").asText().equals(outcome)) {
                return e;
            }
        }
        throw new AssertionError("no " + action + " " + outcome + " in " + entries);
    }
}
