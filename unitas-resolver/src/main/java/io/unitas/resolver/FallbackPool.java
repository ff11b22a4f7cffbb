package io.unitas.resolver;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.unitas.core.internal.Crc32;
import io.unitas.core.endpoint.PoolFormat;

/**
 * The addresses a client uses when DNS fails (seed 003, 2.5), and its two file forms. Binary: a 2-byte big-endian
 * count, that many 4-byte IPv4 addresses, and the CRC32 of everything before it as 4 big-endian bytes. Text: one
 * address (IPv4 or IPv6) per line, blank lines and {@code #} comments ignored.
 *
 * @param addresses the addresses, in file order
 */
public record FallbackPool(List<InetAddress> addresses) {

    /** The pool with no address. */
    public static final FallbackPool EMPTY = new FallbackPool(List.of());

    /** Copies the addresses. */
    public FallbackPool {
        addresses = List.copyOf(addresses);
    }

    /** The address {@code key} (a user id) sticks to: CRC32 of the key modulo the pool's size; null when empty. */
    public InetAddress pick(CharSequence key) {
        return addresses.isEmpty() ? null : addresses.get(Crc32.index(key, addresses.size()));
    }

    /** Decodes the binary form ({@link PoolFormat}); the message of the exception says what is wrong. */
    public static FallbackPool decodeBinary(byte[] data) {
        List<InetAddress> out = new ArrayList<>();
        for (byte[] ip : PoolFormat.decode(data)) {
            try {
                out.add(InetAddress.getByAddress(ip));
            } catch (UnknownHostException e) {
                throw new AssertionError(e); // four bytes are always an IPv4 address
            }
        }
        return new FallbackPool(out);
    }

    /** Encodes the binary form ({@link PoolFormat}); every address must be IPv4 and there may be at most 65535. */
    public byte[] encodeBinary() {
        List<byte[]> ips = new ArrayList<>(addresses.size());
        for (InetAddress a : addresses) {
            if (!(a instanceof Inet4Address)) {
                throw new IllegalArgumentException("address " + a.getHostAddress() + " (expected: IPv4 in the binary form)");
            }
            ips.add(a.getAddress());
        }
        return PoolFormat.encode(ips);
    }

    /** Decodes the text form; the message names the first bad line. */
    public static FallbackPool decodeText(String text) {
        List<InetAddress> out = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int hash = line.indexOf('#');
            line = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (line.isEmpty()) {
                continue;
            }
            out.add(literal(line, i + 1));
        }
        return new FallbackPool(out);
    }

    /** Encodes the text form, one address per line. */
    public String encodeText() {
        StringBuilder sb = new StringBuilder();
        for (InetAddress a : addresses) {
            sb.append(a.getHostAddress()).append('\n');
        }
        return sb.toString();
    }

    /** Decodes {@code data} as text when {@code fileName} ends with {@code .txt}, as binary otherwise. */
    public static FallbackPool decode(String fileName, byte[] data) {
        return fileName.endsWith(".txt") ? decodeText(new String(data, StandardCharsets.UTF_8)) : decodeBinary(data);
    }

    private static InetAddress literal(String s, int line) {
        // Only literals: a name here would make the pool depend on the DNS it stands in for.
        if (s.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            String[] parts = s.split("\\.");
            byte[] ip = new byte[4];
            boolean ok = true;
            for (int i = 0; i < 4; i++) {
                int octet = Integer.parseInt(parts[i]);
                ok &= octet <= 255;
                ip[i] = (byte) octet;
            }
            if (ok) {
                try {
                    return InetAddress.getByAddress(ip);
                } catch (UnknownHostException e) {
                    throw new AssertionError(e);
                }
            }
        } else if (s.indexOf(':') >= 0 && s.matches("[0-9A-Fa-f:.]+")) {
            try {
                return InetAddress.getByName(s); // an IPv6 literal: parsed, never looked up
            } catch (UnknownHostException e) {
                // falls through to the message below
            }
        }
        throw new IllegalArgumentException("line " + line + ": '" + s + "' (expected: an IPv4 or IPv6 address)");
    }
}
