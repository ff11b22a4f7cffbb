package io.unitas.spring;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.saga.SagaRetry;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.saga.HomeSteps;
import io.unitas.data.saga.Saga;
import io.unitas.data.saga.SagaCoordinator;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Runs the sagas the application's beans declare with {@link SagaStep} inside the service: a {@link SagaCoordinator}
 * on the service's database ({@code unitas.saga.data-source}), its recovery loop started and stopped with the
 * application, {@link HomeSteps} to write each step in its key's home and never into a fenced unit, and
 * {@code /actuator/sagas} to list stuck sagas and retry or resolve them. Nothing is built when no bean declares a
 * step.
 */
@AutoConfiguration(after = UnitasAutoConfiguration.class)
@ConditionalOnClass(name = "io.unitas.data.saga.SagaCoordinator")
@ConditionalOnProperty(prefix = "unitas.saga", name = "enabled", matchIfMissing = true)
@Conditional(UnitasSagaAutoConfiguration.OnSagaSteps.class)
@EnableConfigurationProperties(UnitasSagaProperties.class)
public class UnitasSagaAutoConfiguration {

    /** Matches when a bean declares a {@link SagaStep}. */
    static final class OnSagaSteps extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            ConfigurableListableBeanFactory beans = context.getBeanFactory();
            return beans != null && SagaDeclarations.any(beans)
                    ? ConditionOutcome.match("a bean declares a @SagaStep")
                    : ConditionOutcome.noMatch("no bean declares a @SagaStep");
        }
    }

    /**
     * The coordinator of the declared sagas, on {@code unitas.saga.data-source} (migrated there unless
     * {@code unitas.saga.migrate} is false).
     */
    @Bean
    @ConditionalOnMissingBean
    SagaCoordinator unitasSagaCoordinator(UnitasSagaProperties saga, UnitasProperties unitas,
                                          ConfigurableListableBeanFactory beans,
                                          ObjectProvider<DataSource> dataSources,
                                          ObjectProvider<MeterRegistry> registry, ObjectProvider<Clock> clock) {
        List<Saga> sagas = SagaDeclarations.sagas(beans);
        List<String> problems = new ArrayList<>();
        DataSource db = dataSource(beans, dataSources, saga.getDataSource(), "unitas.saga.data-source", problems);
        SagaRetry retry = null;
        try {
            retry = new SagaRetry(saga.getMaxAttempts(), saga.getInitialBackoff(), saga.getMaxBackoff());
        } catch (IllegalArgumentException e) {
            problems.add("unitas.saga." + e.getMessage().replace("maxAttempts", "max-attempts")
                    .replace("initial", "initial-backoff").replace("max:", "max-backoff:"));
        }
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        Clock time = clock.getIfAvailable(Clock::systemUTC);
        if (saga.isMigrate()) {
            UnitasSchema.migrate(db, time);
        }
        String owner = saga.getOwner() != null ? saga.getOwner()
                : unitas.getRegion() + "-" + UUID.randomUUID().toString().substring(0, 8);
        SagaCoordinator.Builder builder = SagaCoordinator.builder().dataSource(db).owner(owner).clock(time)
                .lease(saga.getLease()).retry(retry)
                .meterRegistry(registry.getIfAvailable(SimpleMeterRegistry::new));
        sagas.forEach(builder::saga);
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            // the steps' timeouts against the lease: name the property that sets the lease
            throw new UnitasConfigurationException(List.of("unitas.saga.lease: " + saga.getLease() + ": "
                                                           + e.getMessage()));
        }
    }

    /**
     * Writes a step in the home region of the key it touches, by the routing state's unit rules and fences, into the
     * store of that region ({@code unitas.saga.stores.<region>}; this region's defaults to the sagas' DataSource).
     */
    @Bean
    @ConditionalOnMissingBean
    HomeSteps unitasHomeSteps(UnitasSagaProperties saga, UnitasProperties unitas, UnitasRoutingState state,
                              ConfigurableListableBeanFactory beans, ObjectProvider<DataSource> dataSources,
                              ObjectProvider<Clock> clock) {
        List<String> problems = new ArrayList<>();
        Map<Region, DataSource> stores = new LinkedHashMap<>();
        saga.getStores().forEach((region, bean) -> {
            if (state.current().rules().topology().region(region).isEmpty()) {
                problems.add("unitas.saga.stores." + region + ": unknown region (expected: one of the topology's)");
                return;
            }
            DataSource store = dataSource(beans, dataSources, bean, "unitas.saga.stores." + region, problems);
            if (store != null) {
                stores.put(Region.of(region), store);
            }
        });
        Region here = Region.of(unitas.getRegion());
        if (!stores.containsKey(here)) {
            DataSource own = dataSource(beans, dataSources, saga.getDataSource(), "unitas.saga.stores."
                                                                                  + here.id(), problems);
            if (own != null) {
                stores.put(here, own);
            }
        }
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        Clock time = clock.getIfAvailable(Clock::systemUTC);
        if (saga.isMigrate()) {
            stores.values().forEach(store -> UnitasSchema.migrate(store, time));
        }
        Map<Region, DataSource> byRegion = Map.copyOf(stores);
        return HomeSteps.builder()
                .homes(key -> IdempotencyConfiguration.home(state, key))
                .stores(region -> Optional.ofNullable(byRegion.get(region)))
                .fences(() -> state.current().fences())
                .fenceWait(saga.getFenceWait())
                .clock(time)
                .build();
    }

    /** The recovery loop, started with the application and stopped before its beans are destroyed. */
    @Bean
    SmartLifecycle unitasSagaRecovery(SagaCoordinator coordinator, UnitasSagaProperties saga) {
        Duration period = saga.getRecoverEvery();
        if (period == null || period.isZero() || period.isNegative()) {
            throw new UnitasConfigurationException(List.of("unitas.saga.recover-every: " + period
                                                           + " (expected: > 0)"));
        }
        return new SmartLifecycle() {
            private AutoCloseable loop;

            @Override
            public synchronized void start() {
                loop = coordinator.recoverEvery(period);
            }

            @Override
            public synchronized void stop() {
                try {
                    loop.close();
                } catch (Exception e) {
                    throw new IllegalStateException("saga recovery loop: cannot stop: " + e, e);
                } finally {
                    loop = null;
                }
            }

            @Override
            public synchronized boolean isRunning() {
                return loop != null;
            }
        };
    }

    /** {@code /actuator/sagas}: the stuck sagas, and an operator's retry or resolve. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class Actuator {
        @Bean
        @ConditionalOnMissingBean
        SagaEndpoint unitasSagaEndpoint(SagaCoordinator coordinator) {
            return new SagaEndpoint(coordinator);
        }
    }

    private static DataSource dataSource(ConfigurableListableBeanFactory beans, ObjectProvider<DataSource> all,
                                         String bean, String property, List<String> problems) {
        if (bean != null) {
            try {
                return beans.getBean(bean, DataSource.class);
            } catch (NoSuchBeanDefinitionException e) {
                problems.add(property + ": '" + bean + "' (expected: the name of a DataSource bean)");
                return null;
            }
        }
        DataSource only = all.getIfUnique();
        if (only == null) {
            problems.add(property + ": missing (expected: the name of a DataSource bean, or exactly one DataSource"
                         + " in the application)");
        }
        return only;
    }
}
