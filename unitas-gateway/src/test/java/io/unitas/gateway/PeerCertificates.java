package io.unitas.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway CA made by {@code openssl} and what it signs: the gateway's server certificate ({@code localhost},
 * 127.0.0.1) and a peer gateway's client certificate (CN {@code gw-eu}, DNS {@code gw.eu.test}, URI
 * {@code spiffe://unitas/gateway/eu}); and a stranger, self-signed with the peer's very names.
 */
record PeerCertificates(Path dir) {

    static final String PEER_DNS = "gw.eu.test";
    static final String PEER_URI = "spiffe://unitas/gateway/eu";
    static final String PEER_CN = "gw-eu";
    private static final String PEER_NAMES = "subjectAltName=DNS:" + PEER_DNS + ",URI:" + PEER_URI + "\n"
                                             + "extendedKeyUsage=clientAuth\n";

    static PeerCertificates make(Path dir) {
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=unitas-peers-ca",
                "-keyout", "ca.key", "-out", "ca.crt");
        sign(dir, "server", "localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
        sign(dir, "peer", PEER_CN, PEER_NAMES);
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=" + PEER_CN,
                "-addext", "subjectAltName=DNS:" + PEER_DNS + ",URI:" + PEER_URI, "-keyout", "stranger.key",
                "-out", "stranger.crt");
        return new PeerCertificates(dir);
    }

    Path ca() {
        return dir.resolve("ca.crt");
    }

    Path cert(String name) {
        return dir.resolve(name + ".crt");
    }

    Path key(String name) {
        return dir.resolve(name + ".key");
    }

    X509Certificate x509(String name) throws Exception {
        try (InputStream in = Files.newInputStream(cert(name))) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static void sign(Path dir, String name, String cn, String extensions) {
        write(dir, name + ".ext", extensions);
        openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + cn, "-keyout", name + ".key", "-out",
                name + ".csr");
        openssl(dir, "x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", name + ".ext", "-out", name + ".crt");
    }

    private static void write(Path dir, String name, String text) {
        try {
            Files.writeString(dir.resolve(name), text);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void openssl(Path dir, String... args) {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("openssl " + args[0] + " failed (install openssl): " + out);
            }
        } catch (IOException e) {
            throw new IllegalStateException("openssl: cannot run (install openssl)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
