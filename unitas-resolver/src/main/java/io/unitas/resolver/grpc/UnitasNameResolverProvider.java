package io.unitas.resolver.grpc;

import java.net.SocketAddress;
import java.net.URI;
import java.util.Collection;
import java.util.List;

import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.unitas.resolver.ServiceName;
import io.unitas.resolver.UnitasResolver;

/**
 * Resolves {@code unitas:///name[:port]} targets with a {@link UnitasResolver}: a name starting with {@code _}
 * ({@code _api._tcp.shop.example}) is an SRV service, any other a host name (A/AAAA); the port, or the channel's
 * default port, is the port of A/AAAA answers and of the fallback pool. Register it with
 * {@code NameResolverRegistry.getDefaultRegistry().register(new UnitasNameResolverProvider(resolver))}.
 */
public final class UnitasNameResolverProvider extends NameResolverProvider {

    /** The target scheme this provider resolves. */
    public static final String SCHEME = "unitas";

    private final UnitasResolver resolver;

    /** A provider resolving through {@code resolver} (which the caller keeps and closes). */
    public UnitasNameResolverProvider(UnitasResolver resolver) {
        this.resolver = resolver;
    }

    @Override
    public NameResolver newNameResolver(URI target, NameResolver.Args args) {
        if (!SCHEME.equals(target.getScheme())) {
            return null;
        }
        String path = target.getPath();
        if (path == null || path.length() < 2) {
            throw new IllegalArgumentException("target: '" + target + "' (expected: unitas:///name[:port])");
        }
        String name = path.substring(1);
        int port = args.getDefaultPort();
        int colon = name.lastIndexOf(':');
        if (colon > 0) {
            try {
                port = Integer.parseInt(name.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("target: '" + target + "': port '" + name.substring(colon + 1)
                        + "' (expected: 0..65535)", e);
            }
            name = name.substring(0, colon);
        }
        ServiceName service = name.startsWith("_") ? ServiceName.srv(name, port) : ServiceName.host(name, port);
        return new UnitasNameResolver(resolver, service, args);
    }

    @Override
    public String getDefaultScheme() {
        return SCHEME;
    }

    @Override
    protected boolean isAvailable() {
        return true;
    }

    @Override
    protected int priority() {
        return 5;
    }

    @Override
    public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
        return List.of(java.net.InetSocketAddress.class);
    }
}
