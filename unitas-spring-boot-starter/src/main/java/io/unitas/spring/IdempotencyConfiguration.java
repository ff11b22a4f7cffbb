package io.unitas.spring;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import io.unitas.core.Region;
import io.unitas.core.rules.Unit;
import io.unitas.data.Home;
import io.unitas.data.HomeResolver;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.jdbc.JdbcIdempotencyStore;
import io.unitas.data.jdbc.UnitasSchema;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/** Builds the data layer's {@link Idempotency} and its Servlet filter from {@code unitas.idempotency.*}. */
final class IdempotencyConfiguration {

    private IdempotencyConfiguration() {}

    /**
     * The idempotency whose records live in the store of the owner's home region: the owner is the routing context's
     * unit, its home the region the current rules give it.
     */
    static Idempotency idempotency(UnitasProperties properties, UnitasRoutingState state, BeanFactory beans,
                                   ObjectProvider<DataSource> own, Clock clock) {
        UnitasProperties.Idempotency settings = properties.getIdempotency();
        Map<Region, IdempotencyStore> stores = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        settings.getStores().forEach((region, bean) -> {
            if (state.current().rules().topology().region(region).isEmpty()) {
                problems.add("unitas.idempotency.stores." + region
                             + ": unknown region (expected: one of the topology's)");
                return;
            }
            try {
                stores.put(Region.of(region), new JdbcIdempotencyStore(Region.of(region),
                                                                       beans.getBean(bean, DataSource.class), clock));
            } catch (NoSuchBeanDefinitionException e) {
                problems.add("unitas.idempotency.stores." + region + ": '" + bean
                             + "' (expected: the name of a DataSource bean)");
            }
        });
        Region here = Region.of(properties.getRegion());
        if (!stores.containsKey(here)) {
            DataSource only = own.getIfUnique();
            if (only == null) {
                problems.add("unitas.idempotency.stores." + here.id() + ": missing (expected: the name of the"
                             + " DataSource bean holding this region's records, or exactly one DataSource in the"
                             + " application)");
            } else {
                stores.put(here, new JdbcIdempotencyStore(here, only, clock));
            }
        }
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        if (settings.isMigrate()) {
            DataSource ds = settings.getStores().containsKey(here.id())
                    ? beans.getBean(settings.getStores().get(here.id()), DataSource.class) : own.getIfUnique();
            UnitasSchema.migrate(ds, clock);
        }
        HomeResolver homes = unitId -> {
            Unit unit = state.current().rules().unit(unitId);
            return unit == null ? Home.none(unitId, "no unit '" + unitId + "' in the unit rules")
                                : Home.of(unitId, unit.id(), unit.home());
        };
        Map<Region, IdempotencyStore> copy = Map.copyOf(stores);
        return Idempotency.builder().region(here).homes(homes).stores(r -> Optional.ofNullable(copy.get(r)))
                          .clock(clock).ttl(settings.getTtl()).retryAfter(settings.getRetryAfter()).build();
    }

    /** The filter, right after the routing context's, so the context is current when it runs. */
    static FilterRegistrationBean<IdempotencyFilter> filter(UnitasProperties properties, Idempotency idempotency,
                                                            ObjectProvider<RequestMappingHandlerMapping> mappings) {
        FilterRegistrationBean<IdempotencyFilter> registration = new FilterRegistrationBean<>(
                new IdempotencyFilter(idempotency, properties.getIdempotency().getHeader(),
                                      properties.getIdempotency().getPaths(), mappings));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 11);
        return registration;
    }
}
