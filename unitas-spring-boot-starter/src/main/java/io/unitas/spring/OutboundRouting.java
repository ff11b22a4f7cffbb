package io.unitas.spring;

import java.io.IOException;

import io.unitas.client.RoutingContextHolder;
import io.unitas.client.RoutingHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.RestTemplate;

/**
 * Writes the current routing context on every outgoing {@code RestClient} and {@code RestTemplate} call. The
 * {@code WebClient} filter ({@link WebClientRouting}) and the OpenFeign interceptor ({@link FeignRouting}) live in
 * classes of their own, loaded only when their framework is on the class path.
 */
final class OutboundRouting {

    private OutboundRouting() {}

    /** The interceptor for {@code RestClient} and {@code RestTemplate}. */
    static ClientHttpRequestInterceptor interceptor(RoutingHeaders headers) {
        return new Interceptor(headers);
    }

    /** Puts the interceptor first on {@code template}, so the headers are set before any other interceptor runs. */
    static void addTo(RestTemplate template, RoutingHeaders headers) {
        template.getInterceptors().add(0, interceptor(headers));
    }

    /** Sets the headers from the current thread's context. */
    private record Interceptor(RoutingHeaders headers) implements ClientHttpRequestInterceptor {
        @Override
        public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
                throws IOException {
            headers.write(RoutingContextHolder.current(), request.getHeaders()::set);
            return execution.execute(request, body);
        }
    }
}
