package io.unitas.spring;

import java.util.List;

import io.unitas.client.InstanceSelection;
import io.unitas.client.InstanceSelector;
import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.client.RoutingHeaders;
import io.unitas.core.ServiceKind;
import io.unitas.core.fence.Writes;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.Request;
import org.springframework.cloud.client.loadbalancer.RequestData;
import org.springframework.cloud.client.loadbalancer.RequestDataContext;
import org.springframework.cloud.loadbalancer.core.DelegatingServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import reactor.core.publisher.Flux;

/**
 * Narrows a service's instances, as the registry lists them, to those the call may go to
 * ({@link InstanceSelector}): the target region of the core's route decision for the request's unit, in the
 * service's kind. The routing context is read from the outgoing request's headers when the load balancer sees them,
 * otherwise from the calling thread.
 */
final class UnitAwareServiceInstanceListSupplier extends DelegatingServiceInstanceListSupplier {

    private static final Log LOG = LogFactory.getLog(UnitAwareServiceInstanceListSupplier.class);

    private final InstanceSelector selector;
    private final RoutingHeaders headers;
    private final ServiceKind kind;

    UnitAwareServiceInstanceListSupplier(ServiceInstanceListSupplier delegate, InstanceSelector selector,
                                         RoutingHeaders headers, ServiceKind kind) {
        super(delegate);
        this.selector = selector;
        this.headers = headers;
        this.kind = kind;
    }

    @Override
    public Flux<List<ServiceInstance>> get() {
        RoutingContext context = RoutingContextHolder.current();
        return getDelegate().get().map(instances -> select(instances, context, false));
    }

    @Override
    public Flux<List<ServiceInstance>> get(Request request) {
        RoutingContext context = RoutingContextHolder.current();
        boolean write = false;
        if (request != null && request.getContext() instanceof RequestDataContext data
            && data.getClientRequest() != null) {
            RequestData client = data.getClientRequest();
            RoutingContext sent = headers.read(client.getHeaders()::getFirst);
            if (!sent.isEmpty()) {
                context = sent;
            }
            String path = client.getUrl() == null || client.getUrl().getPath() == null ? "/"
                    : client.getUrl().getPath();
            write = client.getHttpMethod() != null && Writes.DEFAULT.isWrite(client.getHttpMethod().name(), path);
        }
        RoutingContext chosen = context;
        boolean isWrite = write;
        return getDelegate().get(request).map(instances -> select(instances, chosen, isWrite));
    }

    private List<ServiceInstance> select(List<ServiceInstance> instances, RoutingContext context, boolean write) {
        InstanceSelection<ServiceInstance> s = selector.select(instances, ServiceInstance::getMetadata, context, kind,
                                                               write);
        if (s.isEmpty() && LOG.isDebugEnabled()) {
            LOG.debug("no instance of " + getServiceId() + " for unit " + context.unit() + ": " + s.reason());
        }
        return s.instances();
    }
}
