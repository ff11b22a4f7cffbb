package io.unitas.dns;

import java.nio.charset.StandardCharsets;

/** Domain names in wire form (RFC 1035 §3.1), uncompressed, as record data carries them. */
final class Names {

    private Names() {
    }

    /** {@code gw1.cn.shop.example.} as length-prefixed labels ending with the root's empty label. */
    static byte[] encode(String name) {
        String n = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
        if (n.isEmpty()) {
            return new byte[] {0};
        }
        byte[] ascii = n.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[ascii.length + 2];
        int lengthAt = 0;
        int length = 0;
        for (int i = 0; i < ascii.length; i++) {
            if (ascii[i] == '.') {
                out[lengthAt] = (byte) length;
                lengthAt = i + 1;
                length = 0;
            } else {
                out[i + 1] = ascii[i];
                length++;
            }
        }
        out[lengthAt] = (byte) length;
        return out;
    }
}
