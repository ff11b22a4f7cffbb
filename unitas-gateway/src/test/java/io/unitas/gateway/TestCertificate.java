package io.unitas.gateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for {@code localhost} and 127.0.0.1 and its key, PEM files made by {@code openssl}: the
 * server's certificate and, for a client that trusts it, its CA.
 */
record TestCertificate(Path cert, Path key) {

    static TestCertificate make(Path dir, String name) {
        Path cert = dir.resolve(name + ".crt");
        Path key = dir.resolve(name + ".key");
        try {
            Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                           "-subj", "/CN=localhost", "-addext",
                                           "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key.toString(),
                                           "-out", cert.toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.exists(cert)) {
                throw new IllegalStateException("openssl req failed (install openssl, see .ci/install-servers): " + out);
            }
        } catch (IOException e) {
            throw new IllegalStateException("openssl: cannot run (install openssl, see .ci/install-servers)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return new TestCertificate(cert, key);
    }
}
