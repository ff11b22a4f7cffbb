package io.unitas.example.wallet;

import java.nio.charset.StandardCharsets;

/** A user's wallet: its balance, and its version (one more per deposit; higher is newer). */
public record Wallet(String userId, long balance, long version) {

    /** The bytes the regions exchange for it: {@code userId balance version}. */
    byte[] encode() {
        return (userId + " " + balance + " " + version).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A deposit's change as the regions exchange it: the wallet after it, then the amount and the key it was charged
     * under, if any (last, so that a key may hold spaces).
     */
    byte[] encode(long amount, String depositKey) {
        return (userId + " " + balance + " " + version + " " + amount + (depositKey == null ? "" : " " + depositKey))
                .getBytes(StandardCharsets.UTF_8);
    }

    /** The wallet of {@link #encode()} or of a deposit's change (whose deposit {@link #deposit} reads). */
    static Wallet decode(byte[] payload) {
        String[] parts = parts(payload);
        if (parts.length < 3) {
            throw new IllegalArgumentException("wallet: '" + new String(payload, StandardCharsets.UTF_8)
                                               + "' (expected: userId balance version [amount depositKey])");
        }
        return new Wallet(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]));
    }

    /** The deposit a change carries, or null for a wallet alone. */
    static Deposit deposit(byte[] payload) {
        String[] parts = parts(payload);
        return parts.length < 4 ? null : new Deposit(Long.parseLong(parts[3]), parts.length == 5 ? parts[4] : null);
    }

    private static String[] parts(byte[] payload) {
        return new String(payload, StandardCharsets.UTF_8).split(" ", 5);
    }

    /** A deposit as its change carries it: the amount, and the key it was charged under (null: none). */
    record Deposit(long amount, String key) {}
}
