package io.unitas.spring;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.core.ProblemDetail;

/**
 * The write guard over gRPC: a call whose method is not {@linkplain io.grpc.MethodDescriptor#isSafe() safe} is a
 * write, and a write of a unit this region does not take now ({@link WriteGuardDecision}) is closed with
 * {@code FAILED_PRECONDITION} before the handler sees it, its trailers naming the problem type
 * ({@value #PROBLEM}: {@code urn:unitas:problem:not-home-region}), the unit, its home and this region. Runs inside the
 * routing interceptor, with the call's context current. In {@code forward} mode such a write is relayed to the region
 * that takes it ({@link GrpcWriteForwarder}) instead; one that cannot be (it was relayed here already, no region takes
 * it, no gRPC target for that region) is refused, the trailers then also naming who forwarded it
 * ({@code unitas-forwarded-by}).
 */
final class GrpcWriteGuard implements ServerInterceptor {

    static final String PROBLEM = "unitas-problem-type";
    static final Metadata.Key<String> PROBLEM_KEY = Metadata.Key.of(PROBLEM, Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> UNIT_KEY = Metadata.Key.of("unitas-unit", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> HOME_KEY = Metadata.Key.of("unitas-home", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> REGION_KEY = Metadata.Key.of("unitas-region", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> FORWARDED_BY_KEY =
            Metadata.Key.of("unitas-forwarded-by", Metadata.ASCII_STRING_MARSHALLER);
    // the header a relayed call carries, as a forwarded HTTP request does
    private static final Metadata.Key<String> MARKER =
            Metadata.Key.of(WriteForwarder.FORWARDED_BY, Metadata.ASCII_STRING_MARSHALLER);

    private final WriteGuardDecision guard;
    private final UnitasRoutingState state;
    private final GrpcWriteForwarder forwarder;

    /** {@code forwarder}: the relay in {@code forward} mode, else {@code null}. */
    GrpcWriteGuard(WriteGuardDecision guard, UnitasRoutingState state, GrpcWriteForwarder forwarder) {
        this.guard = guard;
        this.state = state;
        this.forwarder = forwarder;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        if (call.getMethodDescriptor().isSafe()) {
            return next.startCall(call, headers);
        }
        RoutingContext context = RoutingContextHolder.current();
        WriteGuardDecision.Refusal refused = guard.refusedWrite(context, state.current());
        if (refused == null) {
            return next.startCall(call, headers);
        }
        String forwardedBy = headers.get(MARKER);
        if (forwarder != null && forwardedBy == null && forwarder.reaches(refused.target())) {
            return forwarder.relay(call, headers, refused.target(), context);
        }
        ProblemDetail problem = forwarder == null || forwardedBy == null
                                ? refused.problem() : WriteForwarder.refusedAgain(refused.problem(), forwardedBy);
        Metadata trailers = new Metadata();
        trailers.put(PROBLEM_KEY, problem.typeUri());
        trailers.put(UNIT_KEY, String.valueOf(problem.extensions().get("unit")));
        trailers.put(HOME_KEY, String.valueOf(problem.extensions().get("home")));
        trailers.put(REGION_KEY, String.valueOf(problem.extensions().get("region")));
        if (problem.extensions().get("forwarded-by") != null) {
            trailers.put(FORWARDED_BY_KEY, String.valueOf(problem.extensions().get("forwarded-by")));
        }
        call.close(Status.FAILED_PRECONDITION.withDescription(problem.detail()), trailers);
        return new ServerCall.Listener<>() {};
    }

    /** {@code routing} first (it makes the call's context current), then {@code guard}, then the service. */
    static ServerInterceptor inside(ServerInterceptor routing, ServerInterceptor guard) {
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                               ServerCallHandler<Q, R> next) {
                return routing.interceptCall(call, headers, (c, h) -> guard.interceptCall(c, h, next));
            }
        };
    }
}
