package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code unitas control}'s listen and TLS options, refused before anything is served. */
class ControlCommandTest {

    @TempDir
    Path dir;

    @Test
    void listeningBeyondLoopbackWithoutTls_isAUsageError() {
        Cli res = Cli.run("control", "--listen", "0.0.0.0:0", "--data", dir.resolve("data").toString());

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err()).startsWith("unitas control: listen 0.0.0.0: not a loopback address, without TLS");
    }

    @Test
    void aFallbackPoolAddressThatIsNotIPv4_isAUsageError() {
        Cli res = Cli.run("control", "--fallback-pool", "127.0.0.1,300.1.1.1", "--data",
                          dir.resolve("data").toString());

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err().strip()).isEqualTo("unitas control: --fallback-pool 300.1.1.1 (expected: IPv4 address"
                                                + " literals, comma-separated)");
    }

    @Test
    void aCertificateWithoutItsKey_isAUsageError() {
        Cli res = Cli.run("control", "--tls-cert", dir.resolve("c.crt").toString(), "--data",
                          dir.resolve("data").toString());

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err()).contains("--tls-cert and --tls-key go together");
    }

    @Test
    void etcdAccessOptionsWithoutTheEtcdStore_areAUsageError() {
        Cli res = Cli.run("control", "--etcd-user", "unitas", "--data", dir.resolve("data").toString());

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err()).contains("go with --store etcd");
    }

    @Test
    void anEtcdClientCertificateWithoutItsKey_isAUsageError() {
        Cli res = Cli.run("control", "--store", "etcd", "--etcd", "https://127.0.0.1:2379", "--etcd-ca",
                          dir.resolve("ca.crt").toString(), "--etcd-cert", dir.resolve("c.crt").toString(),
                          "--data", dir.resolve("data").toString());

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err()).contains("--etcd-cert and --etcd-key go together");
    }

    @Test
    void anEtcdPasswordFileOthersMayRead_isRefused_namingTheChmodThatFixesIt() throws Exception {
        Path password = Files.writeString(dir.resolve("etcd.password"), "hunter2");
        Files.setPosixFilePermissions(password, PosixFilePermissions.fromString("rw-r--r--"));

        Cli res = Cli.run("control", "--store", "etcd", "--etcd", "http://127.0.0.1:2379", "--etcd-user", "unitas",
                          "--etcd-password-file", password.toString(), "--data", dir.resolve("data").toString());

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err()).contains("--etcd-password-file " + password + ": the etcd password file has mode "
                                       + "rw-r--r--", "chmod 600 " + password).doesNotContain("hunter2");
    }

    @Test
    void anEtcdPasswordFileThatCannotBeRead_isNamed() {
        Cli res = Cli.run("control", "--store", "etcd", "--etcd", "http://127.0.0.1:2379", "--etcd-user", "unitas",
                          "--etcd-password-file", dir.resolve("nope").toString(), "--data",
                          dir.resolve("data").toString());

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err()).contains("--etcd-password-file " + dir.resolve("nope") + ": cannot read");
    }
}
