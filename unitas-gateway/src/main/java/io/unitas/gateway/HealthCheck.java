package io.unitas.gateway;

import java.nio.channels.ClosedChannelException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Promise;

/**
 * The answer to one active health check of an upstream endpoint: a {@code GET} of its health path passes on 2xx; a
 * gRPC health check ({@code grpc.health.v1.Health/Check} for the whole server) passes on {@code SERVING} with
 * {@code grpc-status: 0}. The same handler reads an HTTP/1.1 connection or an HTTP/2 stream.
 */
final class HealthCheck extends ChannelInboundHandlerAdapter {

    private static final String GRPC_PATH = "/grpc.health.v1.Health/Check";
    /** A gRPC message frame (uncompressed, 0 bytes long) holding an empty HealthCheckRequest: the whole server. */
    private static final byte[] GRPC_CHECK_ALL = {0, 0, 0, 0, 0};
    /** HealthCheckResponse.ServingStatus.SERVING. */
    private static final int SERVING = 1;
    private static final int MAX_GRPC_ANSWER = 1024;

    private final Promise<Boolean> verdict;
    private final boolean grpc;
    private int status;
    private ByteBuf body;

    HealthCheck(Promise<Boolean> verdict, boolean grpc) {
        this.verdict = verdict;
        this.grpc = grpc;
    }

    static FullHttpRequest getRequest(Upstreams.Endpoint endpoint, String path) {
        FullHttpRequest get = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
        return stamped(get, endpoint);
    }

    static FullHttpRequest grpcRequest(Upstreams.Endpoint endpoint) {
        FullHttpRequest post = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, GRPC_PATH,
                                                          Unpooled.wrappedBuffer(GRPC_CHECK_ALL));
        post.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/grpc")
                      .set(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS)
                      .setInt(HttpHeaderNames.CONTENT_LENGTH, GRPC_CHECK_ALL.length);
        return stamped(post, endpoint);
    }

    private static FullHttpRequest stamped(FullHttpRequest request, Upstreams.Endpoint endpoint) {
        request.headers().set(HttpHeaderNames.HOST, endpoint.authority())
                         .set(HttpHeaderNames.USER_AGENT, "unitas-gateway-health-check");
        return request;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof HttpResponse res) {
                if (res.status().code() < 200) {
                    return; // an interim answer; the final one follows
                }
                status = res.status().code();
                if (!grpc) {
                    verdict.trySuccess(status / 100 == 2);
                    return;
                }
            }
            if (msg instanceof HttpContent piece && grpc) {
                if (body == null) {
                    body = ctx.alloc().heapBuffer();
                }
                body.writeBytes(piece.content(), Math.min(piece.content().readableBytes(),
                                                          MAX_GRPC_ANSWER - body.readableBytes()));
                if (msg instanceof LastHttpContent last) {
                    // gRPC's status comes in trailers, or in the headers of an answer that is only headers
                    HttpHeaders trailers = msg instanceof HttpResponse whole ? whole.headers() : last.trailingHeaders();
                    verdict.trySuccess(status == 200 && "0".equals(trailers.get("grpc-status")) && serving(body));
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    /** Whether {@code frame}, a gRPC message holding a HealthCheckResponse, says SERVING (field 1, a varint). */
    static boolean serving(ByteBuf frame) {
        if (frame.readableBytes() < 5 || frame.readByte() != 0) {
            return false; // too short, or compressed: a health answer of a few bytes never needs to be
        }
        try {
            ByteBuf message = frame.readSlice(frame.readInt());
            while (message.isReadable()) {
                long tag = varint(message);
                int wireType = (int) (tag & 7);
                if (tag >>> 3 == 1 && wireType == 0) {
                    return varint(message) == SERVING;
                }
                switch (wireType) {
                    case 0 -> varint(message);
                    case 1 -> message.skipBytes(8);
                    case 2 -> message.skipBytes((int) varint(message));
                    case 5 -> message.skipBytes(4);
                    default -> {
                        return false;
                    }
                }
            }
            return false; // status left out: UNKNOWN, proto3's default
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            return false; // a message cut short: no answer
        }
    }

    private static long varint(ByteBuf in) {
        long value = 0;
        for (int shift = 0; shift < 64 && in.isReadable(); shift += 7) {
            byte b = in.readByte();
            value |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                break;
            }
        }
        return value;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        verdict.tryFailure(new ClosedChannelException());
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (body != null) {
            body.release();
            body = null;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        verdict.tryFailure(cause);
        ctx.close();
    }
}
