package io.unitas.control;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * A bearer token as its holder gets it once: a name for the audit log, a role, the region it is bound to, and the
 * secret. The control plane keeps only {@link #hash(String) its SHA-256}, one {@link #fileLine()} per token in the
 * tokens file.
 *
 * @param name   who holds it, as the audit log names them
 * @param role   what it may do
 * @param secret the bearer token itself (shown once, never stored)
 * @param region the one region whose health it may report, or empty for any (bind every health agent's token)
 */
public record ControlToken(String name, Role role, String secret, String region) {

    private static final SecureRandom RANDOM = new SecureRandom();

    /** A new token with 256 random bits, not bound to a region. */
    public static ControlToken generate(String name, Role role) {
        return generate(name, role, "");
    }

    /**
     * A new token with 256 random bits, bound to {@code region} (empty: none): it may report that region's health
     * and no other's.
     */
    public static ControlToken generate(String name, Role role, String region) {
        if (!region.isEmpty()) {
            io.unitas.core.Region.of(region); // refuses an id that is not one
        }
        if (!name.matches("[A-Za-z0-9_.@-]{1,64}")) {
            throw new IllegalArgumentException("name: '" + name
                    + "' (expected: 1 to 64 letters, digits, '_', '.', '@' or '-')");
        }
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return new ControlToken(name, role, "utk_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes),
                                region);
    }

    /** The line of the tokens file that admits this token: {@code name role sha256:<hex> [region:<id>]}. */
    public String fileLine() {
        return name + " " + role.jsonName() + " " + hash(secret) + (region.isEmpty() ? "" : " region:" + region);
    }

    /**
     * {@code sha256:<hex>} of a token. Unsalted on purpose: tokens are 256 random bits, so no dictionary applies,
     * and an unsalted hash can be looked up directly.
     */
    public static String hash(String secret) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
            return "sha256:" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "ControlToken{name=" + name + ", role=" + role.jsonName()
               + (region.isEmpty() ? "" : ", region=" + region) + "}"; // never the secret
    }
}
