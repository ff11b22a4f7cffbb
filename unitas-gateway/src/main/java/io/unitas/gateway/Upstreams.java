package io.unitas.gateway;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.linecorp.armeria.client.ClientFactory;
import com.linecorp.armeria.client.Endpoint;
import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.client.endpoint.EndpointGroup;
import com.linecorp.armeria.client.endpoint.OutlierDetectingEndpointGroup;
import com.linecorp.armeria.client.endpoint.healthcheck.HealthCheckedEndpointGroup;
import com.linecorp.armeria.client.retry.Backoff;
import com.linecorp.armeria.client.retry.RetryRule;
import com.linecorp.armeria.client.retry.RetryingClient;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.SessionProtocol;
import com.linecorp.armeria.common.util.AsyncCloseable;

import io.netty.util.AsciiString;
import io.unitas.core.Region;
import io.unitas.gateway.GatewayConfig.Resilience;

/**
 * The HTTP clients to every region's upstream endpoints: per region a default pool and one per gray version,
 * each actively health-checked, with failing endpoints ejected, and a retrying and a plain client over it.
 * Built once from the configuration and owned by the gateway.
 */
final class Upstreams implements AutoCloseable {

    /** The header that makes a non-idempotent request safe to send twice. */
    static final AsciiString IDEMPOTENCY_KEY = HttpHeaderNames.of("idempotency-key");

    private final Map<Region, Pool> defaults = new HashMap<>();
    private final Map<Region, Map<String, Pool>> versions = new HashMap<>();
    private final List<AsyncCloseable> groups = new ArrayList<>();

    Upstreams(Map<Region, GatewayConfig.Upstream> config, Resilience resilience, ClientFactory factory) {
        config.forEach((region, upstream) -> {
            String check = upstream.healthCheck() != null ? upstream.healthCheck() : resilience.healthCheckPath();
            defaults.put(region, pool(upstream.endpoints(), check, resilience, factory));
            Map<String, Pool> byVersion = new HashMap<>();
            upstream.versions().forEach((version, eps) -> byVersion.put(
                    version, pool(eps, check, resilience, factory)));
            versions.put(region, Map.copyOf(byVersion));
        });
    }

    /** The pool serving {@code region}, or {@code null} when none is configured. */
    Pool pool(Region region) {
        return defaults.get(region);
    }

    /** The pool of {@code version} in {@code region}, falling back to the region's default pool. */
    Pool pool(Region region, String version) {
        if (version != null) {
            Map<String, Pool> byVersion = versions.get(region);
            Pool p = byVersion == null ? null : byVersion.get(version);
            if (p != null) {
                return p;
            }
        }
        return defaults.get(region);
    }

    private Pool pool(List<String> endpoints, String healthCheck, Resilience resilience, ClientFactory factory) {
        EndpointGroup group = EndpointGroup.of(endpoints.stream().map(Endpoint::parse).toList());
        if (!healthCheck.isEmpty()) {
            HealthCheckedEndpointGroup checked =
                    HealthCheckedEndpointGroup.builder(group, healthCheck)
                                              .clientFactory(factory)
                                              .retryInterval(resilience.healthCheckInterval())
                                              .build();
            groups.add(checked);
            group = checked;
        }
        OutlierDetectingEndpointGroup ejecting =
                OutlierDetectingEndpointGroup.builder(group)
                                             .failureRateThreshold(resilience.ejectionFailureRate())
                                             .minimumRequestThreshold(resilience.ejectionMinRequests())
                                             .circuitOpenWindow(resilience.ejectionTime())
                                             .build();
        groups.add(ejecting);
        WebClient plain = WebClient.builder(SessionProtocol.HTTP, ejecting)
                                   .factory(factory)
                                   .responseTimeout(resilience.responseTimeout())
                                   .maxResponseLength(0)
                                   .decorator(ejecting.asDecorator())
                                   .build();
        WebClient retrying = WebClient.builder(SessionProtocol.HTTP, ejecting)
                                      .factory(factory)
                                      .responseTimeout(resilience.responseTimeout())
                                      .maxResponseLength(0)
                                      .decorator(ejecting.asDecorator())
                                      .decorator(RetryingClient.builder(RETRY_RULE)
                                                               .maxTotalAttempts(resilience.maxAttempts())
                                                               .newDecorator())
                                      .build();
        return new Pool(ejecting, plain, retrying);
    }

    /**
     * Retries only requests that may safely run twice, on connection failures and on a gateway-class status;
     * each attempt picks an endpoint anew, so a retry goes to another endpoint when there is one.
     */
    static final RetryRule RETRY_RULE =
            RetryRule.builder((ctx, headers) -> isRetryable(headers))
                     .onException()
                     .onStatus(HttpStatus.BAD_GATEWAY, HttpStatus.SERVICE_UNAVAILABLE, HttpStatus.GATEWAY_TIMEOUT)
                     .thenBackoff(Backoff.withoutDelay());

    /**
     * Whether a request may be sent again after a failure: an idempotent method (RFC 9110 section 9.2.2), or
     * any method with an {@code Idempotency-Key}. A bare POST or PATCH never is.
     */
    static boolean isRetryable(RequestHeaders headers) {
        return HttpMethod.idempotentMethods().contains(headers.method()) || headers.contains(IDEMPOTENCY_KEY);
    }

    @Override
    public void close() {
        groups.forEach(AsyncCloseable::closeAsync);
    }

    /** One upstream pool: its endpoint group and the two clients over it. */
    record Pool(EndpointGroup group, WebClient plain, WebClient retrying) {

        /** The client for {@code headers}: the retrying one only when the request may safely be replayed. */
        WebClient clientFor(RequestHeaders headers) {
            return isRetryable(headers) ? retrying : plain;
        }
    }
}
