package io.unitas.example.wallet;

import java.nio.charset.StandardCharsets;

/** A user's wallet: its balance, and its version (one more per deposit; higher is newer). */
public record Wallet(String userId, long balance, long version) {

    /** The bytes the regions exchange for it: {@code userId balance version}. */
    byte[] encode() {
        return (userId + " " + balance + " " + version).getBytes(StandardCharsets.UTF_8);
    }

    /** A deposit's change as the regions exchange it: the wallet after it, then the key it was charged under. */
    byte[] encode(String depositKey) {
        return depositKey == null ? encode()
                                  : (userId + " " + balance + " " + version + " " + depositKey)
                                          .getBytes(StandardCharsets.UTF_8);
    }

    /** The wallet of {@link #encode()} or of a deposit's change (whose key {@link #depositKey} reads). */
    static Wallet decode(byte[] payload) {
        String[] parts = parts(payload);
        if (parts.length < 3) {
            throw new IllegalArgumentException("wallet: '" + new String(payload, StandardCharsets.UTF_8)
                                               + "' (expected: userId balance version [depositKey])");
        }
        return new Wallet(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]));
    }

    /** The deposit key a change carries, or null. */
    static String depositKey(byte[] payload) {
        String[] parts = parts(payload);
        return parts.length == 4 ? parts[3] : null;
    }

    private static String[] parts(byte[] payload) {
        return new String(payload, StandardCharsets.UTF_8).split(" ", 4);
    }
}
