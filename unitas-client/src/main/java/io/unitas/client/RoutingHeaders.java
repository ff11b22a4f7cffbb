package io.unitas.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiConsumer;
import java.util.function.Function;

import io.unitas.core.propagation.HopRule;

/**
 * The header names a routing context travels in, the same as the gateway's {@code headers:} section
 * ({@code x-unitas-unit}, {@code x-unitas-region}, {@code x-unitas-origin}, {@code x-unitas-hops}), plus the gray
 * version's. A region name such as {@code n-d-region} interoperates with Nepxion Discovery.
 *
 * <p>Only a gateway counts hops: a service passes the count on as it received it, so a gateway further along the chain
 * still stops a loop ({@link HopRule}).
 *
 * @param unit    the unit's header
 * @param region  the routed region's header
 * @param origin  the origin region's header
 * @param hops    the hop count's header
 * @param version the gray version's header
 */
public record RoutingHeaders(String unit, String region, String origin, String hops, String version) {

    /** The default names, all prefixed {@code x-unitas-}. */
    public static final RoutingHeaders DEFAULTS = new RoutingHeaders("x-unitas-unit", "x-unitas-region",
                                                                     "x-unitas-origin", "x-unitas-hops",
                                                                     "x-unitas-version");

    /** Lower-cases the names and checks each is an HTTP field name (RFC 9110 token), naming the setting. */
    public RoutingHeaders {
        unit = checked("unit", unit);
        region = checked("region", region);
        origin = checked("origin", origin);
        hops = checked("hops", hops);
        version = checked("version", version);
        List<String> all = List.of(unit, region, origin, hops, version);
        if (all.stream().distinct().count() != all.size()) {
            throw new IllegalArgumentException("headers: " + all + " (expected: five different names)");
        }
    }

    /** What is wrong with {@code name} as a header name, or {@code null} when nothing is. */
    public static String nameProblem(String name) {
        if (name == null || name.isEmpty()) {
            return "expected: a header name";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean token = c > 32 && c < 127 && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0;
            if (!token) {
                return "expected: letters, digits and !#$%&'*+-.^_`|~ only";
            }
        }
        return null;
    }

    /** The names in order: unit, region, origin, hops, version. */
    public List<String> names() {
        return List.of(unit, region, origin, hops, version);
    }

    /** Reads a context from a request's headers; {@code header} returns a header's first value or {@code null}. */
    public RoutingContext read(Function<String, String> header) {
        String u = header.apply(unit);
        String r = header.apply(region);
        if (u == null && r == null) {
            return RoutingContext.EMPTY; // the common case without a stamp reads two headers and allocates nothing
        }
        return new RoutingContext(u, r, header.apply(origin), HopRule.parseHops(header.apply(hops)),
                                  header.apply(version));
    }

    /** Writes {@code context} to an outgoing call's headers, each only when known; an empty context writes nothing. */
    public void write(RoutingContext context, BiConsumer<String, String> setHeader) {
        if (context.isEmpty()) {
            return;
        }
        if (context.unit() != null) {
            setHeader.accept(unit, context.unit());
        }
        if (context.region() != null) {
            setHeader.accept(region, context.region());
        }
        if (context.origin() != null) {
            setHeader.accept(origin, context.origin());
        }
        if (context.hops() > 0) {
            setHeader.accept(hops, Integer.toString(context.hops()));
        }
        if (context.version() != null) {
            setHeader.accept(version, context.version());
        }
    }

    /** Every problem with a set of names, each as {@code <prefix>.<part>: '<name>' (expected: ...)}, all at once. */
    public static List<String> problems(String prefix, String unit, String region, String origin, String hops,
                                        String version) {
        List<String> problems = new ArrayList<>();
        String[] parts = {"unit", "region", "origin", "hops", "version"};
        String[] names = {unit, region, origin, hops, version};
        for (int i = 0; i < parts.length; i++) {
            String p = nameProblem(names[i]);
            if (p != null) {
                problems.add(prefix + "." + parts[i] + ": '" + names[i] + "' (" + p + ")");
            }
        }
        return problems;
    }

    private static String checked(String part, String name) {
        String problem = nameProblem(name);
        if (problem != null) {
            throw new IllegalArgumentException("headers." + part + ": '" + name + "' (" + problem + ")");
        }
        return name.toLowerCase(Locale.ROOT);
    }
}
