package io.unitas.spring;

import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import javax.sql.DataSource;

import io.unitas.core.Region;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitLookup;
import io.unitas.core.rules.UnitRules;
import io.unitas.data.DataProblem;
import io.unitas.data.Home;
import io.unitas.data.HomeResolver;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.internal.JdbcIdempotencyStore;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.remote.HomeReadClient;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.core.Ordered;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Builds the data layer's {@link Idempotency} from {@code unitas.idempotency.*}: records owned by the routing key's
 * value, kept in the home region of its unit; this region's records in this region's {@code DataSource}, other
 * regions' reached over the network through their home-read servers (by default) or, as an option, directly in
 * their databases ({@code unitas.idempotency.stores}).
 */
final class IdempotencyConfiguration {

    private IdempotencyConfiguration() {}

    /**
     * The idempotency, or why it cannot work in this application: the problem is only fatal when an endpoint needs it
     * ({@link IdempotentEndpoints}).
     */
    static IdempotencySetup setup(UnitasProperties properties, UnitasRoutingState state, BeanFactory beans,
                                  ObjectProvider<DataSource> own, HomeReadPeers peers, Clock clock) {
        UnitasProperties.Idempotency settings = properties.getIdempotency();
        if (!settings.isEnabled()) {
            return IdempotencySetup.off("unitas.idempotency.enabled: false (expected: true, the default, where"
                                        + " @Idempotent or unitas.idempotency.paths is used)");
        }
        Map<Region, IdempotencyStore> direct = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        settings.getStores().forEach((region, bean) -> {
            if (state.current().rules().topology().region(region).isEmpty()) {
                problems.add("unitas.idempotency.stores." + region
                             + ": unknown region (expected: one of the topology's)");
                return;
            }
            try {
                direct.put(Region.of(region), new JdbcIdempotencyStore(Region.of(region),
                                                                       beans.getBean(bean, DataSource.class), clock));
            } catch (NoSuchBeanDefinitionException e) {
                problems.add("unitas.idempotency.stores." + region + ": '" + bean
                             + "' (expected: the name of a DataSource bean)");
            }
        });
        Region here = Region.of(properties.getRegion());
        IdempotencyStore local = direct.get(here);
        DataSource only = local == null ? own.getIfUnique() : null;
        String missing = local == null && only == null
                ? "unitas.idempotency.stores." + here.id() + ": missing (expected: the name of the DataSource bean"
                  + " holding this region's records, or exactly one DataSource in the application)" : null;
        if (!problems.isEmpty()) {
            if (missing != null) {
                problems.add(missing);
            }
            throw new UnitasConfigurationException(problems);
        }
        if (missing != null) {
            return IdempotencySetup.off(missing); // fatal only if an endpoint needs it
        }
        if (local == null) {
            local = new JdbcIdempotencyStore(here, only, clock);
            direct.put(here, local);
        }
        if (settings.isMigrate()) {
            DataSource ds = settings.getStores().containsKey(here.id())
                    ? beans.getBean(settings.getStores().get(here.id()), DataSource.class) : own.getIfUnique();
            UnitasSchema.migrate(ds, clock);
        }
        HomeResolver homes = owner -> home(state, owner);
        Map<Region, IdempotencyStore> stores = Map.copyOf(direct);
        HomeReadClient client = peers.client();
        Idempotency idempotency = Idempotency.builder().region(here).homes(homes)
                .unitStores((region, unit) -> {
                    IdempotencyStore store = stores.get(region);
                    if (store != null) {
                        return Optional.of(store);
                    }
                    if (client != null && properties.getReadiness().getHomeReads().getEndpoints()
                                                    .containsKey(region.id())) {
                        return Optional.of(client.idempotency(region, unit));
                    }
                    return Optional.of(new Unrouted(region));
                })
                .clock(clock).ttl(settings.getTtl()).retryAfter(settings.getRetryAfter()).build();
        return new IdempotencySetup(idempotency, local, null);
    }

    /** The home of {@code key}, a value of the unit rules' first key source (a user id), by the rules in force. */
    static Home home(UnitasRoutingState state, String key) {
        UnitRules rules = state.current().rules();
        KeySource source = rules.sources().stream().filter(s -> s.kind().usesRanges()).findFirst().orElse(null);
        if (source == null) {
            return Home.none(key, "the unit rules name no key source with ranges");
        }
        return HomeResolver.rules(() -> rules, source).home(key);
    }

    /** The request's routing key value (a user id) by the unit rules, or {@code null} when it has none. */
    static String routingKey(UnitasRoutingState state, RequestView request) {
        UnitLookup lookup = state.current().rules().lookup(request);
        return lookup.outcome() == UnitLookup.Outcome.UNIT && lookup.source() != null
               && lookup.source().kind().usesRanges() ? lookup.key() : null;
    }

    /** The 400 for an idempotent request whose owner is unknown. */
    static DataProblem noOwner(IdempotentEndpoint endpoint, UnitasRoutingState state) {
        String from = endpoint.ownerVariable() != null ? "the path variable {" + endpoint.ownerVariable() + "}"
                      : "a routing key (" + state.current().rules().sources() + ")";
        return new DataProblem(DataProblem.Type.NO_UNIT, "an idempotent request needs its owner, whose home keeps its "
                               + endpoint.header() + ": " + from + " (expected: a key of the unit rules)",
                               Duration.ZERO);
    }

    /**
     * The settings of {@code handler} when it is {@link Idempotent}, checked against its mapping's path
     * {@code patterns} (unchecked when {@code null}).
     */
    static Optional<IdempotentEndpoint> endpoint(HandlerMethod handler, Set<String> patterns,
                                                 UnitasProperties.Idempotency settings) {
        Idempotent annotation = handler.getMethodAnnotation(Idempotent.class);
        if (annotation == null) {
            return Optional.empty();
        }
        Method method = handler.getMethod();
        return Optional.of(IdempotentEndpoint.of(annotation, method, patterns, settings));
    }

    /** The filter, right after the routing context's, so the context is current when it runs. */
    static FilterRegistrationBean<IdempotencyFilter> filter(UnitasProperties properties, IdempotencySetup setup,
                                                            UnitasRoutingState state,
                                                            ObjectProvider<RequestMappingHandlerMapping> mappings) {
        FilterRegistrationBean<IdempotencyFilter> registration = new FilterRegistrationBean<>(
                new IdempotencyFilter(setup.idempotency(), properties.getIdempotency(), state, mappings));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 12); // after the write guard (+ 11)
        return registration;
    }

    /** A region whose records this process has no way to: every call names what to set. */
    private record Unrouted(Region region) implements IdempotencyStore {
        private <T> StoreResult<T> why() {
            return StoreResult.unavailable(region, "no home-read peer for it (expected: unitas.readiness.home-reads"
                                           + ".endpoints." + region.id() + ", its home-read server; or"
                                           + " unitas.idempotency.stores." + region.id() + ", a DataSource bean of"
                                           + " its database)");
        }

        @Override
        public StoreResult<IdempotencyRecord> idempotencyRecord(String key) {
            return why();
        }

        @Override
        public StoreResult<IdempotencyRecord> claim(IdempotencyRecord record) {
            return why();
        }

        @Override
        public StoreResult<IdempotencyRecord> complete(String key, StoredResponse response) {
            return why();
        }

        @Override
        public StoreResult<String> release(String key) {
            return why();
        }
    }
}
