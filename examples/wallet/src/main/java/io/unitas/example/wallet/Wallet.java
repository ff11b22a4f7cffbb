package io.unitas.example.wallet;

import java.nio.charset.StandardCharsets;

/** A user's wallet: its balance, and its version (one more per deposit; higher is newer). */
public record Wallet(String userId, long balance, long version) {

    /** The bytes the regions exchange for it: {@code userId balance version}. */
    byte[] encode() {
        return (userId + " " + balance + " " + version).getBytes(StandardCharsets.UTF_8);
    }

    static Wallet decode(byte[] payload) {
        String[] parts = new String(payload, StandardCharsets.UTF_8).split(" ");
        if (parts.length != 3) {
            throw new IllegalArgumentException("wallet: '" + new String(payload, StandardCharsets.UTF_8)
                                               + "' (expected: userId balance version)");
        }
        return new Wallet(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]));
    }
}
