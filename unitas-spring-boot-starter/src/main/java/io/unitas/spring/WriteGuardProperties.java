package io.unitas.spring;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code unitas.write-guard.*}: what the service does with a write that reached a region which does not take its
 * unit's writes by the routing state in force ({@link WriteGuardFilter}). Checked when the guard is built: a wrong
 * value stops the start with one line naming the property.
 */
@ConfigurationProperties("unitas.write-guard")
public class WriteGuardProperties {

    private String mode = "refuse";
    private String onReadOnly = "fence";
    private Duration holdDown = Duration.ofSeconds(5);

    /** {@code refuse} (421 {@code not-home-region}, the default) or {@code allow} (served, the stamp naming here). */
    public String getMode() {
        return mode;
    }

    /** Sets the mode. */
    public void setMode(String mode) {
        this.mode = mode;
    }

    /**
     * What the gateways do with a write whose region is read-only ({@code fence}, the gateway's default, or
     * {@code failover}): the guard follows the same decision. Set it as the gateways' {@code routing.on_read_only}.
     */
    public String getOnReadOnly() {
        return onReadOnly;
    }

    /** Sets the read-only policy. */
    public void setOnReadOnly(String onReadOnly) {
        this.onReadOnly = onReadOnly;
    }

    /**
     * How long a region coming back stays held down before its writes are taken there again rather than where they
     * failed over to (default 5s, the gateway's {@code routing.hold_down}): set it as the gateways' is.
     */
    public Duration getHoldDown() {
        return holdDown;
    }

    /** Sets the hold-down. */
    public void setHoldDown(Duration holdDown) {
        this.holdDown = holdDown;
    }
}
