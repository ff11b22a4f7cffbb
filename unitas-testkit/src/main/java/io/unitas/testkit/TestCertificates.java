package io.unitas.testkit;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throwaway CA and the certificates it signs, made with {@code openssl} as the gateway's TLS tests make theirs:
 * {@code ca.crt}, {@code server.crt}/{@code server.key} for {@code localhost} and 127.0.0.1, and
 * {@code client.crt}/{@code client.key} (CN {@code root}) with {@code client.p12} for the JDK.
 */
final class TestCertificates {

    private static final Duration OPENSSL = Duration.ofSeconds(60);
    private static final char[] P12_PASSWORD = "unitas".toCharArray();

    private TestCertificates() {}

    static EtcdServer.Credentials make(Path dir, String password) {
        try {
            Files.createDirectories(dir);
            openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=unitas-test-ca",
                    "-keyout", "ca.key", "-out", "ca.crt");
            sign(dir, "server", "localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                                             + "extendedKeyUsage=serverAuth,clientAuth\n");
            sign(dir, "client", "root", "extendedKeyUsage=clientAuth\n");
            openssl(dir, "pkcs12", "-export", "-in", "client.crt", "-inkey", "client.key", "-out", "client.p12",
                    "-passout", "pass:" + new String(P12_PASSWORD));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return new EtcdServer.Credentials(dir.resolve("ca.crt"), dir.resolve("client.crt"), dir.resolve("client.key"),
                                          "root", password);
    }

    private static void sign(Path dir, String name, String cn, String extensions) throws java.io.IOException {
        Files.writeString(dir.resolve(name + ".ext"), extensions);
        openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + cn, "-keyout", name + ".key", "-out",
                name + ".csr");
        openssl(dir, "x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", name + ".ext", "-out", name + ".crt");
    }

    private static void openssl(Path dir, String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        List<String> inDir = List.of("sh", "-c", "cd \"$0\" && exec \"$@\"", dir.toString());
        List<String> full = new java.util.ArrayList<>(inDir);
        full.addAll(command);
        try {
            ServerProcesses.run(OPENSSL, full);
        } catch (RuntimeException e) {
            throw new IllegalStateException("openssl " + args[0] + " failed (install openssl, see .ci/install-servers): "
                                            + e.getMessage(), e);
        }
    }

    /** A JDK TLS context that trusts {@code ca.crt} and presents {@code client.p12}. */
    static SSLContext clientContext(Path dir) {
        try {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            try (InputStream in = Files.newInputStream(dir.resolve("ca.crt"))) {
                trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(dir.resolve("client.p12"))) {
                keys.load(in, P12_PASSWORD);
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, P12_PASSWORD);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (java.io.IOException | java.security.GeneralSecurityException e) {
            throw new IllegalStateException("test certificates in " + dir + ": " + e.getMessage(), e);
        }
    }
}
