package io.unitas.playground;

import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import java.time.Duration;

/**
 * The route from a region's shops to its example order service: a request under {@link #PREFIX} is passed on with
 * the prefix taken off and every header kept (the gateway's stamp among them), as a path route of an ingress would.
 */
final class ExampleProxy implements HttpService {

    /** The path prefix the example is reached under through every gateway. */
    static final String PREFIX = "/example";

    private final WebClient client;

    ExampleProxy(int orderPort) {
        this.client = WebClient.builder("http://127.0.0.1:" + orderPort).responseTimeout(Duration.ofSeconds(15))
                               .build();
    }

    @Override
    public HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) {
        String path = ctx.mappedPath();
        String query = ctx.query();
        return client.execute(req.withHeaders(req.headers().toBuilder()
                                                 .path(query == null ? path : path + "?" + query).build()));
    }
}
