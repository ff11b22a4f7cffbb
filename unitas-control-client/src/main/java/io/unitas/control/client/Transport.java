package io.unitas.control.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.Locale;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import io.unitas.config.internal.Redact;

/**
 * How a client reaches the control plane safely: {@code https://}, trusting the JDK's certificate authorities or
 * the ones of a PEM file, and {@code http://} only to this machine unless allowed explicitly, since the bearer
 * token travels in every request.
 */
final class Transport {

    private Transport() {}

    /** {@code server} when it may be used; refuses other schemes and cleartext to another host. */
    static URI check(URI server, boolean allowInsecure) {
        String scheme = server.getScheme() == null ? "" : server.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || server.getHost() == null) {
            throw new IllegalArgumentException("control plane url: '" + shown(server)
                                               + "' (expected: https://host:port or http://127.0.0.1:port)");
        }
        if (scheme.equals("http") && !allowInsecure && !loopback(server.getHost())) {
            throw new IllegalArgumentException("control plane url: '" + shown(server)
                                               + "' is cleartext to another host: "
                    + "the bearer token would cross the network readable (expected: https://, or allow_insecure: "
                    + "true to accept that)");
        }
        return server;
    }

    /** {@code server} as messages show it: its user part ({@code user:pass@}) as {@code ***} ({@link Redact}). */
    static String shown(URI server) {
        return Redact.url(server.toString());
    }

    /** Whether {@code host} is this machine, judged without a DNS lookup. */
    static boolean loopback(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (h.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (!h.matches("[0-9.]+") && !h.contains(":")) {
            return false; // a name: only a lookup could tell, and names are how traffic leaves the machine
        }
        try {
            return InetAddress.getByName(h).isLoopbackAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** A TLS context that trusts exactly the certificates of the PEM file {@code ca}. */
    static SSLContext trusting(Path ca) {
        Collection<? extends Certificate> certificates;
        try (InputStream in = Files.newInputStream(ca)) {
            certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("ca: " + ca + ": no such file (expected: a PEM file of CA "
                                               + "certificates)", e);
        } catch (IOException e) {
            throw new IllegalArgumentException("ca: " + ca + ": cannot read: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("ca: " + ca + ": not a certificate (expected: a PEM file of CA "
                                               + "certificates): " + e.getMessage(), e);
        }
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException("ca: " + ca + ": no certificate in it (expected: a PEM file of CA "
                                               + "certificates)");
        }
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate c : certificates) {
                store.setCertificateEntry("ca-" + i++, c);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, trust.getTrustManagers(), null);
            return tls;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("ca: " + ca + ": " + e.getMessage(), e);
        }
    }
}
