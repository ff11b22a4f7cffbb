package io.unitas.spring;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.unitas.core.Region;
import io.unitas.core.rules.UnitRules;
import io.unitas.data.DataReadiness;
import io.unitas.data.Home;
import io.unitas.data.HomeResolver;
import io.unitas.data.remote.HomeRead;
import io.unitas.data.remote.HomeReadClient;
import io.unitas.data.store.StoreResult;

/**
 * {@link UnitasReadiness} over the routing state: homes by the unit rules in force (the rules' first key source
 * names the key), local reads through the repository, home reads through the data layer's {@link HomeReadClient}
 * when {@code unitas.readiness.home-reads.endpoints} names the homes.
 */
final class RepositoryReadiness implements UnitasReadiness {

    private final Region region;
    private final UnitasRoutingState state;
    private final HomeReadClient homeReads;
    private final UnitasProperties.Readiness settings;
    private final Duration timeout;

    private static final Duration BACKSTOP = Duration.ofMillis(500);

    RepositoryReadiness(UnitasProperties properties, UnitasRoutingState state, HomeReadClient homeReads) {
        this.region = Region.of(properties.getRegion());
        this.state = state;
        this.homeReads = homeReads;
        this.settings = properties.getReadiness();
        this.timeout = HomeReadTimeout.of(properties);
    }

    /** The home read client {@code unitas.readiness.home-reads} describes, or {@code null} without endpoints. */
    static HomeReadClient homeReads(UnitasProperties properties, io.micrometer.core.instrument.MeterRegistry meters) {
        UnitasProperties.HomeReads settings = properties.getReadiness().getHomeReads();
        HomeReadTimeout.warnDeprecated(properties);
        if (settings.getEndpoints().isEmpty()) {
            return null;
        }
        String token = token(properties);
        Duration timeout = HomeReadTimeout.of(properties);
        HomeReadClient.Builder client = HomeReadClient.builder().token(token)
                                                      .deadline(timeout, HomeReadTimeout.PROPERTY);
        if (meters != null) {
            client.meterRegistry(meters);
        }
        if (timeout.toMillis() <= 100) {
            client.withoutHedging();
        }
        settings.getEndpoints().forEach((home, urls) -> UnitasProperties.HomeReads.instances(urls).forEach(
                url -> client.endpoint(Region.of(home), URI.create(url))));
        if (settings.getCa() != null) {
            client.trustedCa(Path.of(settings.getCa()));
        }
        if ((settings.getClientCert() == null) != (settings.getClientKey() == null)) {
            throw new UnitasConfigurationException(List.of("unitas.readiness.home-reads.client-cert and client-key: "
                    + (settings.getClientCert() == null ? "client-key" : "client-cert") + " alone (expected: both,"
                    + " the PEM certificate chain and its key, or neither)"));
        }
        if (settings.getClientCert() != null) {
            client.clientCertificate(Path.of(settings.getClientCert()), Path.of(settings.getClientKey()));
        }
        try {
            return client.build();
        } catch (IllegalArgumentException e) {
            throw new UnitasConfigurationException(List.of("unitas.readiness.home-reads: " + e.getMessage()));
        }
    }

    /**
     * The bearer token between regions ({@code unitas.readiness.home-reads.token} or {@code token-file}): the one
     * this region's client sends and its server accepts.
     */
    static String token(UnitasProperties properties) {
        UnitasProperties.HomeReads settings = properties.getReadiness().getHomeReads();
        String token = settings.getToken();
        if (settings.getTokenFile() != null) {
            try {
                token = Files.readString(Path.of(settings.getTokenFile())).trim();
            } catch (IOException e) {
                throw new UnitasConfigurationException(List.of("unitas.readiness.home-reads.token-file: '"
                        + settings.getTokenFile() + "' cannot be read: " + e.getMessage()
                        + " (expected: a file holding the bearer token between regions)"));
            }
        }
        if (token == null || token.isBlank()) {
            throw new UnitasConfigurationException(List.of("unitas.readiness.home-reads.token: missing (expected:"
                    + " the bearer token between regions, or token-file)"));
        }
        return token;
    }

    @Override
    public <V> DataReadiness.Builder<String, V> entity(String type, Function<String, Optional<V>> local,
                                                       Function<byte[], V> decode) {
        HomeResolver homes = this::home;
        return DataReadiness.<String, V>builder()
                .region(region)
                .homes(homes)
                .describe(key -> type + " '" + key + "'")
                // The client ends every home read by the timeout, with a message naming it; the readiness's own
                // timeout is only a backstop behind it, so that message is the one a caller sees.
                .homeTimeout(timeout.plus(BACKSTOP))
                .retryAfter(settings.getRetryAfter())
                .local(key -> {
                    try {
                        return local.apply(key).map(StoreResult::ok)
                                    .orElseGet(() -> StoreResult.notFound(region, type, key));
                    } catch (RuntimeException e) {
                        return StoreResult.unavailable(region, type + " store: " + e.getMessage());
                    }
                })
                .homeAsync((home, key) -> {
                    if (homeReads == null) {
                        return CompletableFuture.completedFuture(StoreResult.unavailable(home, "no read server of "
                                + home.id() + " in unitas.readiness.home-reads.endpoints"));
                    }
                    return homeReads.read(home, home(key).unit(), type, key)
                                    .thenApply(read -> result(read, type, key, decode));
                });
    }

    private Home home(String key) {
        UnitRules rules = state.current().rules();
        if (rules.sources().isEmpty()) {
            return Home.none(key, "the unit rules name no key source");
        }
        return HomeResolver.rules(() -> rules, rules.sources().get(0)).home(key);
    }

    private static <V> StoreResult<V> result(HomeRead read, String type, String key, Function<byte[], V> decode) {
        if (read.found()) {
            try {
                return StoreResult.ok(decode.apply(read.entity().payload()));
            } catch (RuntimeException e) {
                return StoreResult.unavailable(read.home(), type + " '" + key + "' from " + read.home().id()
                                                            + " could not be decoded: " + e.getMessage());
            }
        }
        return read.notReady() ? StoreResult.unavailable(read.home(), read.detail())
                               : StoreResult.notFound(read.home(), type, key);
    }
}
