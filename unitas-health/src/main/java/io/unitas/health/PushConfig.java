package io.unitas.health;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how a health agent pushes its reports: {@code PUT} of the report's JSON to {@code url}, with
 * {@code Authorization: Bearer <token>} when a token is given, on every change and at least every {@code every}.
 *
 * @param url       the receiver ({@code https://control:8443/api/v1/health/cn})
 * @param tokenFile a file holding the bearer token (read at each push, so it can be rotated), or {@code null}
 * @param tokenEnv  an environment variable holding the bearer token, or {@code null}
 * @param every     the longest time between two pushes, as a heartbeat
 * @param ca        a PEM file of the certificate authorities to trust for {@code https://}, or {@code null} for the
 *                  JDK's
 * @param allowInsecure whether {@code http://} to a host other than loopback is allowed (the token in cleartext)
 */
public record PushConfig(URI url, Path tokenFile, String tokenEnv, Duration every, Path ca, boolean allowInsecure) {

    /** Requires a URL and a positive period. */
    public PushConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(every, "every");
        if (every.isZero() || every.isNegative()) {
            throw new IllegalArgumentException("every: " + every + " (expected: > 0)");
        }
    }
}
