package io.unitas.spring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.unitas.control.client.state.StateSource;
import io.unitas.resolver.FallbackPoolSync;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The resolver SDK's fallback pool, switched on by {@code unitas.resolver.pool-file} when {@code unitas-resolver} is on
 * the class path: a {@link FallbackPoolSync} bean that fetches the pool the control plane publishes
 * ({@code unitas.control-plane.*}) at start and every {@code unitas.resolver.pool-refresh}, verifies its CRC32 and
 * replaces the file atomically. The fetches run in the background: a control plane that is down at start leaves the
 * file on disk in use, says so in one log line and as a reason in {@code /actuator/health/unitas}, and never stops the
 * application. Give the bean's {@link FallbackPoolSync#file()} to a {@code UnitasResolver}'s
 * {@code fallbackPool(...)}.
 */
@AutoConfiguration(after = UnitasAutoConfiguration.class)
@ConditionalOnProperty(prefix = "unitas", name = "enabled", matchIfMissing = true)
@ConditionalOnClass(name = "io.unitas.resolver.FallbackPoolSync")
@ConditionalOnBean(UnitasProperties.class) // the starter's core: without it (excluded) this backs off too
@EnableConfigurationProperties(UnitasResolverProperties.class)
public class UnitasResolverAutoConfiguration {

    /** The pool kept in {@code unitas.resolver.pool-file}, fetched now and then every {@code pool-refresh}. */
    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(prefix = "unitas.resolver", name = "pool-file")
    @ConditionalOnMissingBean
    FallbackPoolSync unitasFallbackPool(UnitasResolverProperties settings, UnitasProperties properties) {
        List<String> problems = new ArrayList<>();
        StateSource.ControlPlane control = FollowedRoutingState.controlPlane(properties);
        if (control == null) {
            problems.add("unitas.resolver.pool-file: set without unitas.control-plane.url (expected: the control plane"
                         + " that publishes the pool)");
        }
        Duration every = settings.getPoolRefresh();
        if (every == null || every.isZero() || every.isNegative()) {
            problems.add("unitas.resolver.pool-refresh: " + every + " (expected: > 0)");
        }
        Path file = Path.of(settings.getPoolFile()).toAbsolutePath();
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        FallbackPoolSync sync = FallbackPoolSync.create(FallbackPoolSync.Source.controlPlane(control.client()), file);
        sync.start(every);
        return sync;
    }

    /** The pool's state in {@code /actuator/unitas} and its last problem in {@code /actuator/health/unitas}. */
    @Bean
    @ConditionalOnProperty(prefix = "unitas.resolver", name = "pool-file")
    FallbackPoolStatus unitasFallbackPoolStatus(FallbackPoolSync sync) {
        return new FallbackPoolStatus(sync);
    }
}
