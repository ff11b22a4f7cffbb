package io.unitas.spring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.unitas.client.RoutingHeaders;
import io.unitas.config.internal.SecretFiles;
import io.unitas.control.client.internal.StateSourceReader;
import io.unitas.core.ServiceKind;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The {@code unitas.*} settings of a unit-aware service. Validated when bound (it is its own {@link Validator}, which
 * Spring Boot's {@code @ConfigurationProperties} binding calls): a missing region or rules file, a malformed header
 * name or an unknown service kind stops the start with every problem named ({@link UnitasFailureAnalyzer}).
 */
@ConfigurationProperties("unitas")
public class UnitasProperties implements Validator {

    /** Whether the starter does anything at all. */
    private boolean enabled = true;
    /** Whether Reactor's automatic context propagation is switched on, so operators see the routing context. */
    private boolean reactorContextPropagation = true;
    /** The region this service instance runs in (one of the topology's). */
    private String region;
    /** Where the topology file is ({@code classpath:} or {@code file:} location). */
    private String topology;
    /** Where the unit rules file is. */
    private String rules;
    /** Where the region health file is; without one every region counts as healthy. */
    private String health;
    /** The header names, the same as the gateway's. */
    private final Headers headers = new Headers();
    /** Downstream services by service id: their kind. */
    private final Map<String, Service> services = new LinkedHashMap<>();
    /** The write fence in the service. */
    private final Fence fence = new Fence();
    /** This instance's own unit and gray version, registered as metadata beside its region. */
    private final Instance instance = new Instance();
    /** The control plane whose watch the service follows, when {@code url} is set. */
    private final ControlPlane controlPlane = new ControlPlane();
    /** {@link Idempotent} requests: where their records are kept. */
    private final Idempotency idempotency = new Idempotency();
    /** {@link UnitasReadiness}: how repositories' reads fall back to the home region. */
    private final Readiness readiness = new Readiness();
    /** Reconciliation by digests of the entities declared with a merge policy, against their homes' copies. */
    private final Reconciliation reconciliation = new Reconciliation();
    /** Where the write fences file is, or {@code null} for none (fences then come from a control plane only). */
    private String fences;
    /** How often {@code file:} state files are checked for changes (default 1s). */
    private Duration reloadInterval = Duration.ofSeconds(1);

    /** Whether the starter does anything at all. */
    public boolean isEnabled() {
        return enabled;
    }

    /** Turns the starter on or off. */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** Whether Reactor's automatic context propagation is switched on, so operators see the routing context. */
    public boolean isReactorContextPropagation() {
        return reactorContextPropagation;
    }

    /** Turns Reactor's automatic context propagation on or off. */
    public void setReactorContextPropagation(boolean reactorContextPropagation) {
        this.reactorContextPropagation = reactorContextPropagation;
    }

    /** The region this service instance runs in (one of the topology's). */
    public String getRegion() {
        return region;
    }

    /** Sets the region this instance runs in. */
    public void setRegion(String region) {
        this.region = region;
    }

    /** Where the topology file is ({@code classpath:} or {@code file:} location). */
    public String getTopology() {
        return topology;
    }

    /** Sets the topology file's location. */
    public void setTopology(String topology) {
        this.topology = topology;
    }

    /** Where the unit rules file is. */
    public String getRules() {
        return rules;
    }

    /** Sets the unit rules file's location. */
    public void setRules(String rules) {
        this.rules = rules;
    }

    /** Where the region health file is; without one every region counts as healthy. */
    public String getHealth() {
        return health;
    }

    /** Sets the health file's location. */
    public void setHealth(String health) {
        this.health = health;
    }

    /** Where the write fences file is, or {@code null} for none (fences then come from a control plane only). */
    public String getFences() {
        return fences;
    }

    /** Sets the write fences file's location. */
    public void setFences(String fences) {
        this.fences = fences;
    }

    /** How often {@code file:} state files are checked for changes (default 1s). */
    public Duration getReloadInterval() {
        return reloadInterval;
    }

    /** Sets how often {@code file:} state files are checked for changes. */
    public void setReloadInterval(Duration reloadInterval) {
        this.reloadInterval = reloadInterval;
    }

    /** The control plane whose watch the service follows, when {@code url} is set. */
    public ControlPlane getControlPlane() {
        return controlPlane;
    }

    /** {@link Idempotent} requests: where their records are kept. */
    public Idempotency getIdempotency() {
        return idempotency;
    }

    /** {@link UnitasReadiness}: how repositories' reads fall back to the home region. */
    public Readiness getReadiness() {
        return readiness;
    }

    /** Reconciliation by digests of the entities declared with a merge policy, against their homes' copies. */
    public Reconciliation getReconciliation() {
        return reconciliation;
    }

    /** The header names, the same as the gateway's. */
    public Headers getHeaders() {
        return headers;
    }

    /** Downstream services by service id: their kind. */
    public Map<String, Service> getServices() {
        return services;
    }

    /** The write fence in the service. */
    public Fence getFence() {
        return fence;
    }

    /** This instance's own unit and gray version, registered as metadata beside its region. */
    public Instance getInstance() {
        return instance;
    }

    /** The kind of the service {@code serviceId}: as configured, else {@link ServiceKind#CORE}. */
    public ServiceKind kindOf(String serviceId) {
        Service s = serviceId == null ? null : services.get(serviceId);
        ServiceKind kind = s == null ? null : ServiceKind.ofLabel(s.getKind());
        return kind == null ? ServiceKind.CORE : kind;
    }

    private static void secretFile(Errors errors, String field, String file, String what) {
        if (file == null || file.isBlank()) {
            return;
        }
        try {
            SecretFiles.checkPrivate(Path.of(file), what);
        } catch (IllegalArgumentException e) {
            errors.rejectValue(field, "open", e.getMessage());
        }
    }

    private static void positive(Errors errors, String field, Duration value, String example) {
        if (value == null || value.isNegative() || value.isZero()) {
            errors.rejectValue(field, "invalid", "'" + value + "' (expected: a positive duration, e.g. " + example + ")");
        }
    }

    /** The header names as the client library takes them. */
    public RoutingHeaders routingHeaders() {
        return new RoutingHeaders(headers.unit, headers.region, headers.origin, headers.hops, headers.version);
    }

    @Override
    public boolean supports(Class<?> type) {
        return UnitasProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        if (!enabled) {
            return;
        }
        if (region == null || region.isBlank()) {
            errors.rejectValue("region", "required", "expected: the region this service runs in, e.g. eu");
        }
        if (topology == null || topology.isBlank()) {
            errors.rejectValue("topology", "required",
                               "expected: the topology file, e.g. classpath:unitas/topology.yaml");
        }
        if (rules == null || rules.isBlank()) {
            errors.rejectValue("rules", "required", "expected: the unit rules file, e.g. classpath:unitas/rules.yaml");
        }
        if (reloadInterval == null || reloadInterval.isNegative() || reloadInterval.isZero()) {
            errors.rejectValue("reloadInterval", "invalid",
                               "'" + reloadInterval + "' (expected: a positive duration, e.g. 1s)");
        }
        if (controlPlane.url != null && !controlPlane.url.isBlank()
            && !controlPlane.url.startsWith("http://") && !controlPlane.url.startsWith("https://")) {
            errors.rejectValue("controlPlane.url", "malformed", "'" + controlPlane.url
                               + "' (expected: the control plane's http:// or https:// base URL)");
        }
        if (idempotency.enabled) {
            if (idempotency.ttl == null || idempotency.ttl.isNegative() || idempotency.ttl.isZero()) {
                errors.rejectValue("idempotency.ttl", "invalid",
                                   "'" + idempotency.ttl + "' (expected: a positive duration, e.g. 24h)");
            }
            if (idempotency.retryAfter == null || idempotency.retryAfter.isNegative()) {
                errors.rejectValue("idempotency.retryAfter", "invalid",
                                   "'" + idempotency.retryAfter + "' (expected: a duration >= 0, e.g. 1s)");
            }
            String problem = RoutingHeaders.nameProblem(idempotency.header);
            if (problem != null) {
                errors.rejectValue("idempotency.header", "malformed", "'" + idempotency.header + "' (" + problem + ")");
            }
        }
        if (readiness.homeTimeout != null) { // deprecated: home-reads.timeout
            positive(errors, "readiness.homeTimeout", readiness.homeTimeout, "1s");
        }
        positive(errors, "readiness.retryAfter", readiness.retryAfter, "1s");
        positive(errors, "reconciliation.window", reconciliation.window, "10s");
        if (readiness.homeReads.deadline != null) { // deprecated: home-reads.timeout
            positive(errors, "readiness.homeReads.deadline", readiness.homeReads.deadline, "1s");
        }
        if (readiness.homeReads.timeout != null) {
            positive(errors, "readiness.homeReads.timeout", readiness.homeReads.timeout, "1s");
        }
        HomeReadServer server = readiness.homeReads.server;
        positive(errors, "readiness.homeReads.server.requestTimeout", server.requestTimeout, "2s");
        if (server.port != null && (server.port < 0 || server.port > 65535)) {
            errors.rejectValue("readiness.homeReads.server.port", "invalid", server.port + " (expected: 0 to 65535)");
        }
        if (server.blockingThreads < 1) {
            errors.rejectValue("readiness.homeReads.server.blockingThreads", "invalid",
                               server.blockingThreads + " (expected: >= 1)");
        }
        if ((server.tlsCert == null) != (server.tlsKey == null)) {
            errors.rejectValue(server.tlsCert == null ? "readiness.homeReads.server.tlsCert"
                                                      : "readiness.homeReads.server.tlsKey", "required",
                               "missing (expected: tls-cert and tls-key together)");
        }
        // secret files, checked as ssh checks its keys (SecretFiles): their owner's only, not links
        secretFile(errors, "controlPlane.tokenFile", controlPlane.tokenFile, StateSourceReader.TOKEN_FILE);
        secretFile(errors, "readiness.homeReads.tokenFile", readiness.homeReads.tokenFile,
                   "the token between regions");
        secretFile(errors, "readiness.homeReads.clientKey", readiness.homeReads.clientKey, "the client's private key");
        secretFile(errors, "readiness.homeReads.server.tlsKey", server.tlsKey, "the TLS private key");
        readiness.homeReads.endpoints.forEach((home, urls) -> {
            String expected = " (expected: the home's read server, http://host:port or https://host:port; its "
                              + "instances' URLs separated by commas, all http or all https)";
            List<String> instances = HomeReads.instances(urls);
            if (instances.isEmpty()) {
                errors.rejectValue("readiness.homeReads.endpoints[" + home + "]", "malformed", "empty" + expected);
            }
            // the first instance's scheme is the home's: https:// and http:// peers of one home cannot mix
            String scheme = instances.isEmpty() || instances.get(0).startsWith("http://") ? "http://" : "https://";
            for (String url : instances) {
                if (!url.startsWith(scheme)) {
                    errors.rejectValue("readiness.homeReads.endpoints[" + home + "]", "malformed",
                                       "'" + url + "'" + expected);
                }
            }
        });
        String[] parts = {"unit", "region", "origin", "hops", "version"};
        String[] names = {headers.unit, headers.region, headers.origin, headers.hops, headers.version};
        for (int i = 0; i < parts.length; i++) {
            String problem = RoutingHeaders.nameProblem(names[i]);
            if (problem != null) {
                errors.rejectValue("headers." + parts[i], "malformed", "'" + names[i] + "' (" + problem + ")");
            }
        }
        if (List.of(names).stream().distinct().count() != names.length) {
            errors.rejectValue("headers", "duplicate", List.of(names) + " (expected: five different names)");
        }
        services.forEach((id, service) -> {
            if (ServiceKind.ofLabel(service.getKind()) == null) {
                errors.rejectValue("services[" + id + "].kind", "unknown",
                                   "'" + service.getKind() + "' (expected: core, global or shared)");
            }
        });
    }

    /** Header names; the defaults are the gateway's ({@code x-unitas-*}). */
    public static class Headers {
        /** The unit's header. */
        private String unit = RoutingHeaders.DEFAULTS.unit();
        /** The routed region's header ({@code n-d-region} interoperates with Nepxion Discovery). */
        private String region = RoutingHeaders.DEFAULTS.region();
        /** The origin region's header. */
        private String origin = RoutingHeaders.DEFAULTS.origin();
        /** The hop count's header. */
        private String hops = RoutingHeaders.DEFAULTS.hops();
        /** The gray version's header. */
        private String version = RoutingHeaders.DEFAULTS.version();

        /** The unit's header. */
        public String getUnit() {
            return unit;
        }

        /** Sets the unit's header. */
        public void setUnit(String unit) {
            this.unit = unit;
        }

        /** The routed region's header ({@code n-d-region} interoperates with Nepxion Discovery). */
        public String getRegion() {
            return region;
        }

        /** Sets the routed region's header. */
        public void setRegion(String region) {
            this.region = region;
        }

        /** The origin region's header. */
        public String getOrigin() {
            return origin;
        }

        /** Sets the origin region's header. */
        public void setOrigin(String origin) {
            this.origin = origin;
        }

        /** The hop count's header. */
        public String getHops() {
            return hops;
        }

        /** Sets the hop count's header. */
        public void setHops(String hops) {
            this.hops = hops;
        }

        /** The gray version's header. */
        public String getVersion() {
            return version;
        }

        /** Sets the gray version's header. */
        public void setVersion(String version) {
            this.version = version;
        }
    }

    /** One downstream service. */
    public static class Service {
        /** {@code core} (default), {@code global} or {@code shared}. */
        private String kind = ServiceKind.CORE.label();

        /** {@code core} (default), {@code global} or {@code shared}. */
        public String getKind() {
            return kind;
        }

        /** Sets the service's kind. */
        public void setKind(String kind) {
            this.kind = kind;
        }
    }

    /** The write fence in the service. */
    public static class Fence {
        /** Whether writes of fenced units are refused here too (default on). */
        private boolean enabled = true;

        /** Whether writes of fenced units are refused here too (default on). */
        public boolean isEnabled() {
            return enabled;
        }

        /** Turns the fence filter on or off. */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** This instance as the registry shows it. */
    public static class Instance {
        /** The one unit this instance serves, or {@code null} for every unit. */
        private String unit;
        /** This instance's gray version, or {@code null}. */
        private String version;

        /** The one unit this instance serves, or {@code null} for every unit. */
        public String getUnit() {
            return unit;
        }

        /** Sets the one unit this instance serves. */
        public void setUnit(String unit) {
            this.unit = unit;
        }

        /** This instance's gray version, or {@code null}. */
        public String getVersion() {
            return version;
        }

        /** Sets this instance's gray version. */
        public void setVersion(String version) {
            this.version = version;
        }
    }

    /**
     * The control plane whose watch the service follows (the gateway's {@code control_plane:} section): rules, health
     * and fences as they change; the static files are served until its first state arrives.
     */
    public static class ControlPlane {
        /** The control plane's base URL; unset, the service reads static files only. */
        private String url;
        /** The bearer token (a viewer's is enough), or {@code null}. */
        private String token;
        /** A file holding the bearer token, re-read when it changes, or {@code null}. */
        private String tokenFile;
        /** Where the last good state is kept, served from while the control plane is away and after a restart. */
        private String stateFile = "unitas-state/last-good.json";
        /** A PEM file of the certificate authorities to trust for {@code https://}, or {@code null} for the JDK's. */
        private String ca;
        /** Whether {@code http://} to a host other than loopback is allowed. */
        private boolean allowInsecure;

        /** The control plane's base URL; unset, the service reads static files only. */
        public String getUrl() {
            return url;
        }

        /** Sets the control plane's base URL. */
        public void setUrl(String url) {
            this.url = url;
        }

        /** The bearer token (a viewer's is enough), or {@code null}. */
        public String getToken() {
            return token;
        }

        /** Sets the bearer token. */
        public void setToken(String token) {
            this.token = token;
        }

        /** A file holding the bearer token, re-read when it changes, or {@code null}. */
        public String getTokenFile() {
            return tokenFile;
        }

        /** Sets the token file. */
        public void setTokenFile(String tokenFile) {
            this.tokenFile = tokenFile;
        }

        /** Where the last good state is kept, served from while the control plane is away and after a restart. */
        public String getStateFile() {
            return stateFile;
        }

        /** Sets where the last good state is kept. */
        public void setStateFile(String stateFile) {
            this.stateFile = stateFile;
        }

        /** A PEM file of the certificate authorities to trust for {@code https://}, or {@code null} for the JDK's. */
        public String getCa() {
            return ca;
        }

        /** Sets the CA file. */
        public void setCa(String ca) {
            this.ca = ca;
        }

        /** Whether {@code http://} to a host other than loopback is allowed. */
        public boolean isAllowInsecure() {
            return allowInsecure;
        }

        /** Allows cleartext to a host other than loopback. */
        public void setAllowInsecure(boolean allowInsecure) {
            this.allowInsecure = allowInsecure;
        }
    }

    /**
     * {@link Idempotent} requests and {@code paths}: this region's records are kept in the application's only
     * {@code DataSource} (or the bean {@code stores.<region>} names); another region's are claimed at its home-read
     * server ({@code unitas.readiness.home-reads.endpoints}), or, as an option, directly in its database when
     * {@code stores} names a {@code DataSource} for it.
     */
    public static class Idempotency {
        /**
         * Whether idempotency is on (default on); off with an idempotent endpoint in the application stops the start.
         */
        private boolean enabled = true;
        /**
         * The response headers kept with the record and replayed, besides {@code Content-Type} (default
         * {@code Location}, {@code ETag}, {@code Last-Modified}, {@code Content-Language}).
         */
        private List<String> replayedHeaders = List.of("Location", "ETag", "Last-Modified", "Content-Language");
        /** The request header carrying the key (default {@code Idempotency-Key}). */
        private String header = "Idempotency-Key";
        /** Path patterns ({@code /orders/**}) whose writes are idempotent without the annotation. */
        private List<String> paths = List.of();
        /** How long a record counts (default 24h). */
        private Duration ttl = Duration.ofHours(24);
        /** The wait suggested with 409 and 503 answers (default 1s). */
        private Duration retryAfter = Duration.ofSeconds(1);
        /** Whether this region's store gets the unitas schema at start (default on). */
        private boolean migrate = true;
        /** Region id to the name of the {@code DataSource} bean holding that region's records. */
        private final Map<String, String> stores = new LinkedHashMap<>();

        /**
         * Whether idempotency is on (default on); off with an idempotent endpoint in the application stops the start.
         */
        public boolean isEnabled() {
            return enabled;
        }

        /** Turns idempotency on or off. */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * The response headers kept with the record and replayed, besides {@code Content-Type} (default
         * {@code Location}, {@code ETag}, {@code Last-Modified}, {@code Content-Language}).
         */
        public List<String> getReplayedHeaders() {
            return replayedHeaders;
        }

        /** Sets the replayed headers. */
        public void setReplayedHeaders(List<String> replayedHeaders) {
            this.replayedHeaders = replayedHeaders == null ? List.of() : replayedHeaders;
        }

        /** The request header carrying the key (default {@code Idempotency-Key}). */
        public String getHeader() {
            return header;
        }

        /** Sets the key's header. */
        public void setHeader(String header) {
            this.header = header;
        }

        /** Path patterns ({@code /orders/**}) whose writes are idempotent without the annotation. */
        public List<String> getPaths() {
            return paths;
        }

        /** Sets the idempotent path patterns. */
        public void setPaths(List<String> paths) {
            this.paths = paths == null ? List.of() : paths;
        }

        /** How long a record counts (default 24h). */
        public Duration getTtl() {
            return ttl;
        }

        /** Sets how long a record counts. */
        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        /** The wait suggested with 409 and 503 answers (default 1s). */
        public Duration getRetryAfter() {
            return retryAfter;
        }

        /** Sets the suggested wait. */
        public void setRetryAfter(Duration retryAfter) {
            this.retryAfter = retryAfter;
        }

        /** Whether this region's store gets the unitas schema at start (default on). */
        public boolean isMigrate() {
            return migrate;
        }

        /** Turns the schema migration at start on or off. */
        public void setMigrate(boolean migrate) {
            this.migrate = migrate;
        }

        /** Region id to the name of the {@code DataSource} bean holding that region's records. */
        public Map<String, String> getStores() {
            return stores;
        }
    }

    /**
     * {@code unitas.reconciliation.*}: each unit whose home is another region compared with the home's copy, by
     * key-range digests read from the home's home-read server, and its differences repaired through the merge path.
     */
    public static class Reconciliation {
        /**
         * Whether reconciliation runs (default: when an entity is declared with a merge policy, home-read endpoints
         * are set and the database is PostgreSQL).
         */
        private Boolean enabled;
        /** How often each unit is compared with its home's copy: the bound on how long drift stays (default 10s). */
        private Duration window = Duration.ofSeconds(10);

        /** Whether reconciliation runs; {@code null}: decided by what is declared. */
        public Boolean getEnabled() {
            return enabled;
        }

        /** Turns reconciliation on or off. */
        public void setEnabled(Boolean enabled) {
            this.enabled = enabled;
        }

        /** How often each unit is compared with its home's copy. */
        public Duration getWindow() {
            return window;
        }

        /** Sets how often each unit is compared with its home's copy. */
        public void setWindow(Duration window) {
            this.window = window;
        }
    }

    /** {@code unitas.readiness.*}: reads of repositories that fall back to the key's home region. */
    public static class Readiness {
        /** Deprecated: {@code unitas.readiness.home-reads.timeout} is the one timeout of a home read. */
        private Duration homeTimeout;
        /** The wait suggested with {@code data-not-ready} (default 1s). */
        private Duration retryAfter = Duration.ofSeconds(1);
        /** The home regions' read servers; without endpoints, no home is read and a local miss is not ready. */
        private final HomeReads homeReads = new HomeReads();

        /**
         * Deprecated, {@code null} unless set: {@code unitas.readiness.home-reads.timeout} is the one timeout of a home
         * read; this name still works, with a warning at start ({@link HomeReadTimeout}).
         */
        @Deprecated
        public Duration getHomeTimeout() {
            return homeTimeout;
        }

        /** Sets the home read's timeout (deprecated: {@code home-reads.timeout}). */
        @Deprecated
        public void setHomeTimeout(Duration homeTimeout) {
            this.homeTimeout = homeTimeout;
        }

        /** The wait suggested with {@code data-not-ready} (default 1s). */
        public Duration getRetryAfter() {
            return retryAfter;
        }

        /** Sets the suggested wait. */
        public void setRetryAfter(Duration retryAfter) {
            this.retryAfter = retryAfter;
        }

        /** The home regions' read servers; without endpoints, no home is read and a local miss is not ready. */
        public HomeReads getHomeReads() {
            return homeReads;
        }
    }

    /**
     * {@code unitas.readiness.home-reads.*}: the other regions' home-read servers this region reads from and claims
     * idempotency keys at (the data layer's {@code HomeReadClient}), and this region's own server ({@code server}).
     */
    public static class HomeReads {
        /**
         * Region id to the URL of its {@code HomeReadServer} ({@code http://host:port} or {@code https://}), or the
         * URLs of its instances, separated by commas.
         */
        private final Map<String, String> endpoints = new LinkedHashMap<>();
        /** This region's home-read server, started with the application when its port is set. */
        private final HomeReadServer server = new HomeReadServer();

        /** This region's home-read server, started with the application when its port is set. */
        public HomeReadServer getServer() {
            return server;
        }
        /** The bearer token the homes accept. */
        private String token;
        /** A file holding the token (read at start), instead of {@link #getToken()}. */
        private String tokenFile;
        /** PEM CA certificates to trust for {@code https} endpoints (default: the JDK's). */
        private String ca;
        /** The PEM client certificate chain this region presents to homes that require one (with {@code client-key}). */
        private String clientCert;
        /** The PEM private key of {@code client-cert}. */
        private String clientKey;
        /** Deprecated: {@code unitas.readiness.home-reads.timeout} is the one timeout of a home read. */
        private Duration deadline;
        /** The most one home read or idempotency call at a home may take, connecting and both attempts included (default 1s). */
        private Duration timeout;

        /**
         * The most one home read or idempotency call at a home may take, connecting and both attempts included:
         * {@code null} unless set, for the default 1s ({@link HomeReadTimeout}).
         */
        public Duration getTimeout() {
            return timeout;
        }

        /** Sets the home read's timeout. */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        /**
         * Region id to the URL of its {@code HomeReadServer} ({@code http://host:port} or {@code https://}), or the
         * URLs of its instances, separated by commas: reads and claims go to each in turn.
         */
        public Map<String, String> getEndpoints() {
            return endpoints;
        }

        /** The URLs {@code endpoints} gives {@code region}, in order (its instances). */
        static List<String> instances(String urls) {
            return urls == null ? List.of() : java.util.Arrays.stream(urls.split(",")).map(String::trim)
                                                          .filter(url -> !url.isEmpty()).toList();
        }

        /** The bearer token the homes accept. */
        public String getToken() {
            return token;
        }

        /** Sets the token. */
        public void setToken(String token) {
            this.token = token;
        }

        /** A file holding the token (read at start), instead of {@link #getToken()}. */
        public String getTokenFile() {
            return tokenFile;
        }

        /** Sets the token's file. */
        public void setTokenFile(String tokenFile) {
            this.tokenFile = tokenFile;
        }

        /** PEM CA certificates to trust for {@code https} endpoints (default: the JDK's). */
        public String getCa() {
            return ca;
        }

        /** Sets the CA file. */
        public void setCa(String ca) {
            this.ca = ca;
        }

        /** The PEM client certificate chain this region presents to homes that require one (with {@code client-key}). */
        public String getClientCert() {
            return clientCert;
        }

        /** Sets the client certificate chain's file. */
        public void setClientCert(String clientCert) {
            this.clientCert = clientCert;
        }

        /** The PEM private key of {@code client-cert}. */
        public String getClientKey() {
            return clientKey;
        }

        /** Sets the client key's file. */
        public void setClientKey(String clientKey) {
            this.clientKey = clientKey;
        }

        /** Deprecated, {@code null} unless set: {@link #getTimeout()} replaces it (a warning at start). */
        @Deprecated
        public Duration getDeadline() {
            return deadline;
        }

        /** Sets the deadline (deprecated: {@code timeout}). */
        @Deprecated
        public void setDeadline(Duration deadline) {
            this.deadline = deadline;
        }
    }

    /**
     * {@code unitas.readiness.home-reads.server.*}: this region's home-read server (HTTP/2), serving the
     * {@link UnitasEntity} beans and this region's idempotency records to the other regions, with the bearer token of
     * {@code unitas.readiness.home-reads.token}.
     */
    public static class HomeReadServer {
        /** The port to listen on; unset, no server is started (0: any free port). */
        private Integer port;
        /** The address to listen on (default 127.0.0.1; another needs TLS or {@code allow-plaintext}). */
        private String host = "127.0.0.1";
        /** The PEM certificate chain served over TLS (with {@code tls-key}). */
        private String tlsCert;
        /** The PEM private key of {@code tls-cert}. */
        private String tlsKey;
        /** PEM CA certificates that issue the callers' client certificates: set, every caller must present one. */
        private String clientCa;
        /** Cleartext on an address other than loopback (behind a proxy or mesh that adds TLS; default false). */
        private boolean allowPlaintext;
        /** How long one read or idempotency operation may take before the home answers 503 (default 2s). */
        private Duration requestTimeout = Duration.ofSeconds(2);
        /** Threads that run the local reads and the store (default 8). */
        private int blockingThreads = 8;

        /** The port to listen on; unset, no server is started (0: any free port). */
        public Integer getPort() {
            return port;
        }

        /** Sets the port. */
        public void setPort(Integer port) {
            this.port = port;
        }

        /** The address to listen on (default 127.0.0.1; another needs TLS or {@code allow-plaintext}). */
        public String getHost() {
            return host;
        }

        /** Sets the address. */
        public void setHost(String host) {
            this.host = host;
        }

        /** The PEM certificate chain served over TLS (with {@code tls-key}). */
        public String getTlsCert() {
            return tlsCert;
        }

        /** Sets the certificate chain's file. */
        public void setTlsCert(String tlsCert) {
            this.tlsCert = tlsCert;
        }

        /** The PEM private key of {@code tls-cert}. */
        public String getTlsKey() {
            return tlsKey;
        }

        /** Sets the key's file. */
        public void setTlsKey(String tlsKey) {
            this.tlsKey = tlsKey;
        }

        /** PEM CA certificates that issue the callers' client certificates: set, every caller must present one. */
        public String getClientCa() {
            return clientCa;
        }

        /** Sets the client CA file. */
        public void setClientCa(String clientCa) {
            this.clientCa = clientCa;
        }

        /** Cleartext on an address other than loopback (behind a proxy or mesh that adds TLS; default false). */
        public boolean isAllowPlaintext() {
            return allowPlaintext;
        }

        /** Allows cleartext off loopback. */
        public void setAllowPlaintext(boolean allowPlaintext) {
            this.allowPlaintext = allowPlaintext;
        }

        /** How long one read or idempotency operation may take before the home answers 503 (default 2s). */
        public Duration getRequestTimeout() {
            return requestTimeout;
        }

        /** Sets the request timeout. */
        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }

        /** Threads that run the local reads and the store (default 8). */
        public int getBlockingThreads() {
            return blockingThreads;
        }

        /** Sets the blocking threads. */
        public void setBlockingThreads(int blockingThreads) {
            this.blockingThreads = blockingThreads;
        }
    }
}
