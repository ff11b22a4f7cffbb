package io.unitas.gateway;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.SslHandler;

/**
 * Whose requests may carry unitas stamps ({@code x-unitas-region} and the rest): the other regions' gateways. A stamp
 * says "already routed, deliver here"; from anyone else it would let a client pick its region past health and fences,
 * so the gateway strips stamps from every request not from one of these peers. A peer is named by its address or by
 * its certificate:
 * <ul>
 * <li>an address literal ({@code 10.1.2.3}, {@code ::1}) or a CIDR ({@code 10.1.0.0/16}); no host names, so reading
 *     it never resolves anything;</li>
 * <li>{@code dns:NAME}, {@code uri:URI} or {@code cn:NAME}: a DNS or URI subject alternative name, or the subject's
 *     common name, of the client certificate the connection presented. The listener asks for one only with
 *     {@code tls.client_ca} and accepts only those that chain to it, so a name is as good as that CA.</li>
 * </ul>
 */
final class TrustedPeers {

    private static final TrustedPeers NONE = new TrustedPeers(List.of(), List.of());
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    /** Subject alternative name types (RFC 5280, 4.2.1.6) as {@link X509Certificate#getSubjectAlternativeNames}. */
    private static final int SAN_DNS = 2;
    private static final int SAN_URI = 6;

    private final byte[][] networks;
    private final int[] prefixes;
    private final List<Name> names;

    private TrustedPeers(List<Range> ranges, List<Name> names) {
        this.networks = new byte[ranges.size()][];
        this.prefixes = new int[ranges.size()];
        for (int i = 0; i < networks.length; i++) {
            networks[i] = ranges.get(i).network;
            prefixes[i] = ranges.get(i).prefix;
        }
        this.names = List.copyOf(names);
    }

    /** Nobody's stamps are trusted. */
    static TrustedPeers none() {
        return NONE;
    }

    /**
     * The ranges written in {@code gateway.yaml}.
     *
     * @throws IllegalArgumentException naming the first range that is not an address or CIDR
     */
    static TrustedPeers of(List<String> ranges) {
        List<Range> parsed = new ArrayList<>();
        List<Name> names = new ArrayList<>();
        for (String r : ranges) {
            Name name = name(r);
            if (name != null) {
                names.add(name);
            } else {
                parsed.add(range(r));
            }
        }
        return parsed.isEmpty() && names.isEmpty() ? NONE : new TrustedPeers(parsed, names);
    }

    /** Whether {@code peer} names a peer by its certificate ({@code dns:}, {@code uri:}, {@code cn:}). */
    static boolean namesCertificate(String peer) {
        return kind(peer) != null;
    }

    /** {@code dns}, {@code uri} or {@code cn} when {@code text} starts with one and a colon, else {@code null}. */
    private static String kind(String text) {
        int colon = text.indexOf(':');
        String kind = colon < 0 ? "" : text.substring(0, colon);
        // an IPv6 literal's first group is hexadecimal: never one of these
        return kind.equals("dns") || kind.equals("uri") || kind.equals("cn") ? kind : null;
    }

    /** A certificate name, or {@code null} when {@code text} has no certificate prefix. */
    private static Name name(String text) {
        String kind = kind(text);
        if (kind == null) {
            return null;
        }
        String value = text.substring(kind.length() + 1);
        if (value.isEmpty() || !value.strip().equals(value)) {
            throw new IllegalArgumentException("'" + text + "' (expected: " + kind + ": and a name without spaces "
                                               + "around it, such as dns:gw.eu.example)");
        }
        return new Name(kind, kind.equals("uri") ? value : value.toLowerCase(Locale.ROOT));
    }

    /** What is wrong with {@code range} as a trusted range, or {@code null} when nothing is. */
    static String problem(String range) {
        try {
            if (name(range) == null) {
                range(range);
            }
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static Range range(String text) {
        String expected = "'" + text + "' (expected: an IP address or CIDR such as 10.1.0.0/16 or ::1/128, or a "
                          + "certificate's name: dns:NAME, uri:URI or cn:NAME)";
        int slash = text.indexOf('/');
        String address = slash < 0 ? text : text.substring(0, slash);
        boolean v4 = IPV4.matcher(address).matches();
        if (!v4 && !address.contains(":")) {
            throw new IllegalArgumentException(expected); // a name would need resolving: not here
        }
        byte[] bytes;
        try {
            bytes = InetAddress.getByName(address).getAddress(); // a literal: parsed, never looked up
        } catch (UnknownHostException | SecurityException e) {
            throw new IllegalArgumentException(expected);
        }
        int bits = bytes.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String p = text.substring(slash + 1);
            if (!p.matches("\\d{1,3}") || Integer.parseInt(p) > bits) {
                throw new IllegalArgumentException(expected);
            }
            prefix = Integer.parseInt(p);
        }
        return new Range(bytes, prefix);
    }

    /**
     * Whether the connection of {@code channel} (an HTTP/2 stream's: its parent's) may stamp requests: by its address,
     * or by the client certificate its TLS handshake verified.
     */
    boolean trusts(Channel channel) {
        Channel connection = channel instanceof Http2StreamChannel stream ? stream.parent() : channel;
        return trusts(connection.remoteAddress()) || !names.isEmpty() && trusts(peerCertificate(connection));
    }

    /** The verified client certificate of {@code connection}'s TLS session, or {@code null} without one. */
    private static X509Certificate peerCertificate(Channel connection) {
        SslHandler tls = connection.pipeline().get(SslHandler.class);
        SSLSession session = tls == null ? null : tls.engine().getSession();
        try {
            return session != null && session.getPeerCertificates().length > 0
                   && session.getPeerCertificates()[0] instanceof X509Certificate c ? c : null;
        } catch (SSLPeerUnverifiedException e) {
            return null; // no certificate presented
        }
    }

    /** Whether {@code certificate} (verified by the listener) is named by one of the certificate peers. */
    boolean trusts(X509Certificate certificate) {
        if (certificate == null || names.isEmpty()) {
            return false;
        }
        List<Name> its = new ArrayList<>();
        try {
            if (certificate.getSubjectAlternativeNames() != null) {
                for (List<?> san : certificate.getSubjectAlternativeNames()) {
                    if (san.size() >= 2 && san.get(1) instanceof String value) {
                        int type = (Integer) san.get(0);
                        if (type == SAN_DNS) {
                            its.add(new Name("dns", value.toLowerCase(Locale.ROOT)));
                        } else if (type == SAN_URI) {
                            its.add(new Name("uri", value));
                        }
                    }
                }
            }
            for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    its.add(new Name("cn", String.valueOf(rdn.getValue()).toLowerCase(Locale.ROOT)));
                }
            }
        } catch (CertificateParsingException | InvalidNameException e) {
            return false; // a name that cannot be read names nobody
        }
        return its.stream().anyMatch(names::contains);
    }

    /** Whether a connection from {@code remote} may stamp requests by its address. */
    boolean trusts(SocketAddress remote) {
        if (networks.length == 0 || !(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return false;
        }
        byte[] address = inet.getAddress().getAddress();
        for (int i = 0; i < networks.length; i++) {
            if (matches(networks[i], prefixes[i], address)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(byte[] network, int prefix, byte[] address) {
        if (network.length != address.length) {
            return false;
        }
        int whole = prefix / 8;
        for (int b = 0; b < whole; b++) {
            if (network[b] != address[b]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int mask = 0xff << (8 - rest) & 0xff;
        return (network[whole] & mask) == (address[whole] & mask);
    }

    private record Range(byte[] network, int prefix) {}

    private record Name(String kind, String value) {}
}
