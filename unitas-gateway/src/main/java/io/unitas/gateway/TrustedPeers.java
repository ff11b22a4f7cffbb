package io.unitas.gateway;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The address ranges whose requests may carry unitas stamps ({@code x-unitas-region} and the rest): the other
 * regions' gateways. A stamp says "already routed, deliver here"; from anyone else it would let a client pick its
 * region past health and fences, so the gateway strips stamps from every request not from one of these ranges.
 * Each range is an address literal ({@code 10.1.2.3}, {@code ::1}) or a CIDR ({@code 10.1.0.0/16}); no names, so
 * reading it never resolves anything.
 */
final class TrustedPeers {

    private static final TrustedPeers NONE = new TrustedPeers(List.of());
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private final byte[][] networks;
    private final int[] prefixes;

    private TrustedPeers(List<Range> ranges) {
        this.networks = new byte[ranges.size()][];
        this.prefixes = new int[ranges.size()];
        for (int i = 0; i < networks.length; i++) {
            networks[i] = ranges.get(i).network;
            prefixes[i] = ranges.get(i).prefix;
        }
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
        for (String r : ranges) {
            parsed.add(range(r));
        }
        return parsed.isEmpty() ? NONE : new TrustedPeers(parsed);
    }

    /** What is wrong with {@code range} as a trusted range, or {@code null} when nothing is. */
    static String problem(String range) {
        try {
            range(range);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static Range range(String text) {
        String expected = "'" + text + "' (expected: an IP address or CIDR such as 10.1.0.0/16 or ::1/128)";
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

    /** Whether a connection from {@code remote} may stamp requests. */
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
}
