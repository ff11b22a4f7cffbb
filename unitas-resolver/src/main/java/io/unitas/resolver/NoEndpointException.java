package io.unitas.resolver;

/** A service has no endpoint: DNS gave none and the fallback pool is empty. Carries the service and the last DNS outcome. */
public final class NoEndpointException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient ServiceName service;

    NoEndpointException(ServiceName service, String why) {
        super(service + ": no endpoint (" + why + ")");
        this.service = service;
    }

    /** The service asked for. */
    public ServiceName service() {
        return service;
    }
}
