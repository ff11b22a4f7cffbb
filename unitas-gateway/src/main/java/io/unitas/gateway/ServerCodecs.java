package io.unitas.gateway;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import io.netty.handler.codec.http.HttpServerCodec;

/**
 * What an answer written as bytes past {@link HttpServerCodec} must do in the codec's stead. The codec pairs each
 * answer it encodes with the method of the request it decoded (an answer to {@code HEAD} has no body), taking the
 * oldest from a queue; an answer that does not pass through it must take its request's entry too, else the queue
 * grows with every such answer and a later {@code HEAD}'s answer is paired with another request. Netty offers no
 * call for it, so the codec's own private method is used; when a Netty version lacks it, answers are not written as
 * bytes ({@link #available()}).
 */
final class ServerCodecs {

    private static final MethodHandle POLL_METHOD = pollMethod();

    private ServerCodecs() {}

    private static MethodHandle pollMethod() {
        try {
            return MethodHandles.privateLookupIn(HttpServerCodec.class, MethodHandles.lookup())
                                .findVirtual(HttpServerCodec.class, "pollMethod", MethodType.methodType(byte.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Whether answers may be written past the codec: the codec's record can be kept in step. */
    static boolean available() {
        return POLL_METHOD != null;
    }

    /** Takes the codec's record of the request an answer written past it answers, as encoding it would. */
    static void answered(HttpServerCodec codec) {
        try {
            byte ignored = (byte) POLL_METHOD.invokeExact(codec);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot keep the HTTP/1.1 codec's record of requests in step", e);
        }
    }
}
