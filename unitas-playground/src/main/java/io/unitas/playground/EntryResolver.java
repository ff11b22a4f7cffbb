package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.resolver.EndpointProbe;
import io.unitas.resolver.Resolution;
import io.unitas.resolver.ServiceName;
import io.unitas.resolver.Source;
import io.unitas.resolver.UnitasResolver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

/**
 * How a unitas drill's virtual users find their entry gateway: through the playground's {@code unitas dns} and the
 * resolver SDK, as a Java client of the product would. One resolver per region, placed in it by its client subnet,
 * asks for the gateways' SRV service (the region's own gateway at priority 10, its fallback order's after it) and
 * keeps the answer for its TTL. A call that finds no one listening is reported, so after 3 in a row the SDK moves
 * the region's users to the next priority at once, without asking DNS again; probes bring the gateway back once it
 * answers. When DNS stops answering the SDK keeps its answer, then switches to the playground's fallback pool.
 */
final class EntryResolver implements AutoCloseable {

    /** How often each gateway is probed (a TCP connect); the seed's 3 s is long for a 20 s drill. */
    private static final Duration PROBE_EVERY = Duration.ofSeconds(1);
    /** The longest a pick may wait: the first DNS answer, or the 800 ms until the fallback pool takes over. */
    private static final Duration PICK_WAIT = Duration.ofSeconds(3);

    private record Client(UnitasResolver resolver, ServiceName service) {}

    private final Map<Region, Client> clients = new LinkedHashMap<>();
    private final Map<Source, LongAdder> picks = new EnumMap<>(Source.class);

    EntryResolver(Playground p) {
        this(p.regions(), r -> p.dns(), p::clientNetwork, r -> p.fallbackPool(), r -> p.gateway(r).getPort());
    }

    /**
     * Resolvers for {@code regions}: each asks its region's DNS server, placed by its client network, and falls back
     * on its region's pool file, with the region's gateway port.
     */
    EntryResolver(List<Region> regions, Function<Region, InetSocketAddress> dns, Function<Region, String> network,
                  Function<Region, Path> pool, ToIntFunction<Region> gatewayPort) {
        for (Source s : Source.values()) {
            picks.put(s, new LongAdder());
        }
        try {
            for (Region r : regions) {
                String[] net = network.apply(r).split("/");
                UnitasResolver resolver = UnitasResolver.builder().dnsServer(dns.apply(r))
                        .clientSubnet(InetAddress.getByName(net[0]), Integer.parseInt(net[1]))
                        .fallbackPool(pool.apply(r))
                        .probe(EndpointProbe.tcp(Duration.ofSeconds(1))).probeInterval(PROBE_EVERY)
                        .build();
                // A pool address carries no port: the region's own gateway's is used with it.
                clients.put(r, new Client(resolver, ServiceName.srv(EntryDns.SERVICE, gatewayPort.applyAsInt(r))));
            }
        } catch (java.net.UnknownHostException e) {
            close();
            throw new IllegalStateException("playground: client network is not an address literal", e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Resolvers for every region of {@code p}, each with its first answer from DNS (or the pool, when DNS gives none
     * within {@code wait}): the first resolution of a cold client takes a while on a loaded machine, and a drill's
     * clock should not count it.
     */
    static EntryResolver warm(Playground p, Duration wait) {
        return warm(new EntryResolver(p), wait);
    }

    /** {@code e}, each of its resolvers with its first answer from DNS (or the pool) within {@code wait}. */
    static EntryResolver warm(EntryResolver e, Duration wait) {
        long end = System.nanoTime() + wait.toNanos();
        for (Client c : e.clients.values()) {
            while (System.nanoTime() < end) {
                try {
                    Resolution r = c.resolver().resolve(c.service()).get(PICK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    if (r.source() == Source.DNS) {
                        break;
                    }
                    Thread.sleep(100); // on the pool after a slow first answer: it asks DNS again every second
                } catch (ExecutionException | TimeoutException ex) {
                    // no answer yet: ask again until the deadline
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return e;
                }
            }
        }
        return e;
    }

    /** The gateway a user of {@code home} sends its next request to, or null when the SDK has none to offer. */
    URI entry(Region home, String user) {
        Client c = clients.get(home);
        try {
            Resolution r = c.resolver().resolve(c.service()).get(PICK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            picks.get(r.source()).increment();
            InetSocketAddress a = c.resolver().pick(c.service(), user).get(PICK_WAIT.toMillis(),
                                                                           TimeUnit.MILLISECONDS);
            return URI.create("http://" + a.getAddress().getHostAddress() + ":" + a.getPort());
        } catch (ExecutionException | TimeoutException e) {
            return null; // no answer yet and no pool: the request fails as one that reached nobody
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Tells the SDK whether a request to {@code entry} reached a gateway ({@code answered}: any HTTP status; a 5xx
     * is the gateway speaking, not its absence).
     */
    void report(Region home, URI entry, boolean answered) {
        if (entry == null) {
            return;
        }
        InetSocketAddress a = new InetSocketAddress(InetAddress.getLoopbackAddress(), entry.getPort());
        clients.get(home).resolver().report(a, answered);
    }

    /** How many picks were answered from DNS, from a stale answer and from the fallback pool. */
    String summary() {
        return "entries picked through unitas dns and the resolver SDK: " + picks.entrySet().stream()
                .map(e -> e.getValue().sum() + " " + switch (e.getKey()) {
                    case DNS -> "from DNS";
                    case STALE -> "from a stale answer";
                    case POOL -> "from the fallback pool";
                }).collect(Collectors.joining(", "));
    }

    /** Picks answered from the fallback pool. */
    long poolPicks() {
        return picks.get(Source.POOL).sum();
    }

    @Override
    public void close() {
        clients.values().forEach(c -> c.resolver().close());
    }
}
