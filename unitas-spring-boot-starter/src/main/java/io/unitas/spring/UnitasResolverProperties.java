package io.unitas.spring;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code unitas.resolver.*}: the fallback address pool (seed 003) the control plane publishes, kept on this
 * instance's disk for the resolver SDK, so clients of the service still have addresses when DNS, and the control
 * plane, are unreachable. The control plane is the one the service follows ({@code unitas.control-plane.*}).
 *
 * <pre>
 * unitas:
 *   control-plane: {url: http://127.0.0.1:7070, token-file: /etc/shop/viewer.token}
 *   resolver:
 *     pool-file: /var/lib/shop/fallback-pool.bin   # fetched, CRC32-checked, replaced atomically
 *     pool-refresh: 1m
 * </pre>
 */
@ConfigurationProperties(prefix = "unitas.resolver")
public class UnitasResolverProperties {

    /** Where the fallback pool is kept (binary, CRC32-checked); unset, no pool is fetched. */
    private String poolFile;
    /** How often the pool is fetched again (default 1m). */
    private Duration poolRefresh = Duration.ofMinutes(1);

    /** Where the fallback pool is kept; unset, no pool is fetched. */
    public String getPoolFile() {
        return poolFile;
    }

    /** Sets where the fallback pool is kept. */
    public void setPoolFile(String poolFile) {
        this.poolFile = poolFile;
    }

    /** How often the pool is fetched again (default 1m). */
    public Duration getPoolRefresh() {
        return poolRefresh;
    }

    /** Sets how often the pool is fetched again. */
    public void setPoolRefresh(Duration poolRefresh) {
        this.poolRefresh = poolRefresh;
    }
}
