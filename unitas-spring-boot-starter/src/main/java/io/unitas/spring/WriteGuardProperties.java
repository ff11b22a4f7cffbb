package io.unitas.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

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
    private final Forward forward = new Forward();

    /**
     * {@code refuse} (421 {@code not-home-region}, the default), {@code forward} (sent on to the region that takes the
     * unit's writes, at {@code unitas.write-guard.forward.targets.<region>} or, for gRPC, {@code grpc-targets}, and
     * its answer relayed) or {@code allow} (served, the stamp naming here).
     */
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

    /** Where {@code forward} sends a write, and how long it waits. */
    public Forward getForward() {
        return forward;
    }

    /** {@code unitas.write-guard.forward.*}: read only in {@code forward} mode. */
    public static class Forward {

        private Map<String, String> targets = new LinkedHashMap<>();
        /**
         * Per region, host:port of that region's gRPC server of this service (or of its gateway) that a gRPC write
         * is relayed to in forward mode: one for every other region, or none (gRPC writes are then refused).
         */
        private Map<String, String> grpcTargets = new LinkedHashMap<>();
        /** Whether the gRPC targets are reached without TLS (h2c); by default over TLS. */
        private boolean grpcPlaintext;
        private Duration timeout = Duration.ofSeconds(5);

        /**
         * Per region, the base URL (scheme, host and port) of that region's instance of this service, or of its
         * gateway, that a write whose unit that region takes is forwarded to, with the request's path and query:
         * one for every other region of the topology.
         */
        public Map<String, String> getTargets() {
            return targets;
        }

        /** Sets the targets. */
        public void setTargets(Map<String, String> targets) {
            this.targets = targets;
        }

        /**
         * Per region, the {@code host:port} of that region's gRPC server of this service, or of its gateway, that a
         * gRPC write (a method that is not safe) whose unit that region takes is relayed to, as the same method: one
         * for every other region of the topology. None set: gRPC writes of another region's unit are refused.
         */
        public Map<String, String> getGrpcTargets() {
            return grpcTargets;
        }

        /** Sets the gRPC targets. */
        public void setGrpcTargets(Map<String, String> grpcTargets) {
            this.grpcTargets = grpcTargets;
        }

        /**
         * Whether the gRPC targets are reached without TLS (h2c), as inside a mesh whose sidecars encrypt; by default
         * they are reached over TLS, trusting the JVM's certificate authorities.
         */
        public boolean isGrpcPlaintext() {
            return grpcPlaintext;
        }

        /** Sets whether the gRPC targets are reached without TLS. */
        public void setGrpcPlaintext(boolean grpcPlaintext) {
            this.grpcPlaintext = grpcPlaintext;
        }

        /**
         * The most a forwarded write takes until the other region's answer begins, connecting included (default 5s);
         * for a relayed gRPC call, until its response headers.
         */
        public Duration getTimeout() {
            return timeout;
        }

        /** Sets the timeout. */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }
}
