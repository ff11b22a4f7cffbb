package io.unitas.dns;

import java.util.Arrays;

import io.netty.util.NetUtil;

/**
 * An IPv4 or IPv6 network, {@code 10.1.0.0/16} or {@code 2001:db8::/32}, kept as its address bytes (4 or 16) with
 * the bits after the prefix cleared.
 *
 * @param network the network's address bytes
 * @param prefix  how many leading bits are fixed
 */
public record Cidr(byte[] network, int prefix) {

    /** Checks the prefix against the family and clears the host bits. */
    public Cidr {
        if (network.length != 4 && network.length != 16) {
            throw new IllegalArgumentException("address: " + network.length + " bytes (expected: 4 or 16)");
        }
        if (prefix < 0 || prefix > network.length * 8) {
            throw new IllegalArgumentException("prefix: /" + prefix + " (expected: /0 to /" + network.length * 8 + ")");
        }
        network = Bits.truncate(network, prefix);
    }

    /** Reads {@code 10.1.0.0/16}; the message of the exception says what was expected. */
    public static Cidr parse(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("'" + text + "' (expected: address/prefix, e.g. 10.1.0.0/16)");
        }
        byte[] address = NetUtil.createByteArrayFromIpAddressString(text.substring(0, slash));
        if (address == null) {
            throw new IllegalArgumentException("'" + text + "' (expected: an IPv4 or IPv6 address before the /)");
        }
        int prefix;
        try {
            prefix = Integer.parseInt(text.substring(slash + 1));
        } catch (NumberFormatException e) {
            prefix = -1;
        }
        if (prefix < 0 || prefix > address.length * 8) {
            throw new IllegalArgumentException("'" + text + "' (expected: a prefix from /0 to /" + address.length * 8
                                               + ")");
        }
        return new Cidr(address, prefix);
    }

    /** Whether {@code address} (of the same family) is in this network. */
    public boolean contains(byte[] address) {
        return address.length == network.length && Bits.common(address, network) >= prefix;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr c && c.prefix == prefix && Arrays.equals(c.network, network);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(network) + prefix;
    }

    @Override
    public String toString() {
        return NetUtil.bytesToIpAddress(network) + "/" + prefix;
    }
}
