package io.unitas.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code unitas.saga.*}: the service's saga coordinator, built when a bean declares a {@link SagaStep}.
 */
@ConfigurationProperties(prefix = "unitas.saga")
public class UnitasSagaProperties {

    /** Whether the coordinator runs the declared sagas. */
    private boolean enabled = true;
    /** The DataSource bean keeping the sagas' status (default: the application's only DataSource). */
    private String dataSource;
    /** Whether unitas's migrations run on the sagas' DataSource and on every store at start. */
    private boolean migrate = true;
    /** This coordinator's name in the leases it holds (default: the region and a random suffix). */
    private String owner;
    /** How long a coordinator holds a saga without writing; every step's timeout must be shorter. */
    private Duration lease = Duration.ofSeconds(30);
    /** How often the recovery loop drives sagas a crash or a backoff left. */
    private Duration recoverEvery = Duration.ofSeconds(1);
    /** Attempts of a failing execution or compensation before the saga compensates or is stuck. */
    private int maxAttempts = 5;
    /** The first retry's backoff; doubled per retry up to {@link #maxBackoff}. */
    private Duration initialBackoff = Duration.ofMillis(100);
    /** The longest backoff between retries. */
    private Duration maxBackoff = Duration.ofSeconds(10);
    /** The longest a step waits for its unit's write fence to lift before it refuses (or, compensating, fails). */
    private Duration fenceWait = Duration.ofSeconds(5);
    /** Region id to the DataSource bean of that region's store, for steps written through {@code HomeSteps}. */
    private Map<String, String> stores = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getDataSource() {
        return dataSource;
    }

    public void setDataSource(String dataSource) {
        this.dataSource = dataSource;
    }

    public boolean isMigrate() {
        return migrate;
    }

    public void setMigrate(boolean migrate) {
        this.migrate = migrate;
    }

    public String getOwner() {
        return owner;
    }

    public void setOwner(String owner) {
        this.owner = owner;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Duration getRecoverEvery() {
        return recoverEvery;
    }

    public void setRecoverEvery(Duration recoverEvery) {
        this.recoverEvery = recoverEvery;
    }

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public Duration getInitialBackoff() {
        return initialBackoff;
    }

    public void setInitialBackoff(Duration initialBackoff) {
        this.initialBackoff = initialBackoff;
    }

    public Duration getMaxBackoff() {
        return maxBackoff;
    }

    public void setMaxBackoff(Duration maxBackoff) {
        this.maxBackoff = maxBackoff;
    }

    public Duration getFenceWait() {
        return fenceWait;
    }

    public void setFenceWait(Duration fenceWait) {
        this.fenceWait = fenceWait;
    }

    public Map<String, String> getStores() {
        return stores;
    }

    public void setStores(Map<String, String> stores) {
        this.stores = stores;
    }
}
