package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.testkit.EtcdServer;

/** The control plane on an etcd that speaks only TLS, asks for a client certificate and requires a password. */
class EtcdSecureTest {

    private static EtcdServer etcd;
    private static EtcdServer.Credentials access;

    @TempDir
    Path dir;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdServer.startSecure();
        access = etcd.credentials().orElseThrow();
    }

    @AfterAll
    static void stopEtcd() {
        etcd.close();
    }

    private ControlServer.Builder control(String password) {
        return ControlServer.builder().port(0).dataDir(dir.resolve("data")).tokens(Fixtures.tokensFile(dir))
                            .etcd(List.of(etcd.endpoint())).etcdPrefix("/secure-" + System.nanoTime() + "/")
                            .etcdTls(access.ca(), access.cert(), access.key()).etcdAuth(access.user(), password)
                            .leaderLease(Duration.ofSeconds(2));
    }

    @Test
    void withTheCaTheClientCertificateAndThePassword_changesLandAndAreReadBack() {
        ControlServer.Builder builder = control(access.password());
        long revision;
        try (ControlServer server = builder.start()) {
            Fixtures.seed(RawClient.of(server.uri(), Fixtures.ADMIN.secret()), Instant.now(), 0);
            revision = server.revision();
        }
        try (ControlServer again = builder.start()) {
            assertThat(again.revision()).isEqualTo(revision).isGreaterThanOrEqualTo(5);
        }
    }

    @Test
    void aCallerChosenReason_isCappedInEtcdToo() {
        try (EtcdStore store = new EtcdStore(List.of(etcd.endpoint()), "/capped-" + System.nanoTime() + "/",
                Duration.ofSeconds(2), new EtcdStore.Access(access.ca(), access.cert(), access.key(), access.user(),
                                                            access.password()))) {
            store.audit(new AuditEntry(0, Instant.now(), "anonymous", "state.read", "/api/v1/state",
                                       "unauthenticated", "r".repeat(7_700), 0, "no bearer token"));

            assertThat(store.audit(0, 1).get(0).reason()).hasSizeLessThanOrEqualTo(256)
                                                          .endsWith("(7468 more characters)");
        }
    }

    @Test
    void aWrongPassword_isRefusedByEtcd() {
        assertThatThrownBy(() -> control("not-the-password").start().close())
                .hasMessageContaining("etcd:")
                .hasStackTraceContaining("authentication failed");
    }

    @Test
    void plaintextEndpointsWithACa_orACertificateWithoutACa_areRefusedBeforeConnecting() {
        assertThatThrownBy(() -> new EtcdStore(List.of(URI.create("http://127.0.0.1:2379")), "/x/",
                Duration.ofSeconds(2), new EtcdStore.Access(access.ca(), null, null, null, null)))
                .hasMessage("etcd endpoint http://127.0.0.1:2379 (expected: https:// with a CA given)");
        assertThatThrownBy(() -> new EtcdStore.Access(null, access.cert(), access.key(), null, null))
                .hasMessageContaining("etcd client certificate without a CA");
    }
}
