package io.unitas.core.endpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The binary form of a fallback address pool (seed 003, 2.5), the one wire format the control plane publishes and the
 * resolver SDK keeps on disk: a 2-byte big-endian count, that many 4-byte IPv4 addresses, and the CRC32 of everything
 * before it as 4 big-endian bytes. Pure: bytes in, bytes out.
 */
public final class PoolFormat {

    private PoolFormat() {}

    /**
     * The pool of {@code addresses}, each 4 bytes (IPv4).
     *
     * @throws IllegalArgumentException for more than 65535 addresses or one that is not 4 bytes
     */
    public static byte[] encode(List<byte[]> addresses) {
        if (addresses.size() > 65_535) {
            throw new IllegalArgumentException("addresses: " + addresses.size() + " (expected: <= 65535)");
        }
        byte[] out = new byte[2 + 4 * addresses.size() + 4];
        out[0] = (byte) (addresses.size() >>> 8);
        out[1] = (byte) addresses.size();
        int at = 2;
        for (byte[] a : addresses) {
            if (a.length != 4) {
                throw new IllegalArgumentException("address of " + a.length + " bytes (expected: IPv4 in the binary"
                                                   + " form)");
            }
            System.arraycopy(a, 0, out, at, 4);
            at += 4;
        }
        CRC32 crc = new CRC32();
        crc.update(out, 0, at);
        long value = crc.getValue();
        for (int i = 0; i < 4; i++) {
            out[at + i] = (byte) (value >>> (24 - 8 * i));
        }
        return out;
    }

    /**
     * The addresses of {@code data}, 4 bytes each, in order.
     *
     * @throws IllegalArgumentException saying what is wrong: the length, or a checksum mismatch
     */
    public static List<byte[]> decode(byte[] data) {
        if (data.length < 6) {
            throw new IllegalArgumentException("length " + data.length + " (expected: at least 6 bytes, count and CRC32)");
        }
        int count = ((data[0] & 0xFF) << 8) | (data[1] & 0xFF);
        int expected = 2 + 4 * count + 4;
        if (data.length != expected) {
            throw new IllegalArgumentException("length " + data.length + " (expected: " + expected + " for "
                                               + count + " addresses)");
        }
        CRC32 crc = new CRC32();
        crc.update(data, 0, data.length - 4);
        long stored = 0;
        for (int i = data.length - 4; i < data.length; i++) {
            stored = (stored << 8) | (data[i] & 0xFF);
        }
        if (crc.getValue() != stored) {
            throw new IllegalArgumentException(String.format("checksum mismatch (stored: %08x, computed: %08x)",
                                                             stored, crc.getValue()));
        }
        List<byte[]> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] ip = new byte[4];
            System.arraycopy(data, 2 + 4 * i, ip, 0, 4);
            out.add(ip);
        }
        return out;
    }
}
