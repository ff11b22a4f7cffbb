package io.unitas.resolver;

import java.util.Locale;

/**
 * What a client asks for: an SRV name ({@code _api._tcp.shop.example}) whose records carry ports, priorities and
 * weights, or a host name with the port to use. {@code port} is also the port of the fallback pool's addresses,
 * which carry none.
 *
 * @param name the DNS name, absolute (no trailing dot needed)
 * @param srv whether {@code name} is looked up as SRV (otherwise A and AAAA)
 * @param port the port for A/AAAA answers and for the fallback pool
 */
public record ServiceName(String name, boolean srv, int port) {

    /** Validates the name and port. */
    public ServiceName {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name: '" + name + "' (expected: a DNS name)");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
        }
        name = name.toLowerCase(Locale.ROOT);
        name = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }

    /** An SRV service; {@code fallbackPort} is used with the fallback pool's addresses. */
    public static ServiceName srv(String name, int fallbackPort) {
        return new ServiceName(name, true, fallbackPort);
    }

    /** A host name resolved through A and AAAA, served on {@code port}. */
    public static ServiceName host(String name, int port) {
        return new ServiceName(name, false, port);
    }

    @Override
    public String toString() {
        return srv ? "SRV " + name : name + ":" + port;
    }
}
