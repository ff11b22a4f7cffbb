package io.unitas.gateway;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.util.AsciiString;

/**
 * Reads an upstream HTTP/1.1 connection's answer as bytes, for an exchange whose client takes the answer as it is
 * (an HTTP/1.1 client that keeps its connection alive, a request other than {@code HEAD}): the head is scanned, not
 * parsed into a header map; its hop-by-hop lines and the gateway's own stamps are left out, the rest is copied into
 * a buffer the exchange appends its stamps to; then the body's framing (a length, or chunks up to the last one and
 * its trailers) is followed to know where the answer ends, and its bytes are passed on as they come, chunked framing
 * included. An answer it does not take as it is, and every answer of an exchange that did not ask for bytes, goes on
 * to the HTTP decoder behind it, parsed as before: interim (1xx) answers, the failures that may be retried (502, 503,
 * 504), a body delimited by the connection's close, anything but {@code HTTP/1.1}, a folded or malformed line, a
 * {@code Connection} header naming other headers, conflicting or unusual framing headers. Those are rare; the
 * decoder behind keeps its own errors for them.
 */
final class RawAnswers extends ChannelInboundHandlerAdapter {

    /** Where the bytes of an answer read as bytes go; {@link Connections.Link} passes them to its exchange. */
    interface Sink {
        /** Names the exchange stamps on the answer itself: any the upstream sent are left out. */
        AsciiString[] stampNames();

        /**
         * The answer's head, its last line break left off (the exchange's stamps and the blank line follow);
         * {@code last} when it has no body. Ownership passes.
         */
        void rawHead(ByteBuf head, int status, boolean keepAlive, boolean last);

        /** The next bytes of the body, framing included; {@code last} when the answer ends with them. */
        void rawBody(ByteBuf body, boolean last);
    }

    static final int MAX_HEAD_BYTES = 64 * 1024;
    /** A chunk's size line or a trailer line longer than this is refused (the decoder's limit is the same order). */
    private static final int MAX_LINE_BYTES = 8 * 1024;
    /** {@link #framingLineEnd}: the line's end is in a later read. */
    private static final int INCOMPLETE = -1;
    /** {@link #framingLineEnd}: the line cannot be chunked framing. */
    private static final int MALFORMED = -2;

    private static final int PASS = 0;
    private static final int HEAD = 1;
    private static final int FIXED = 2;
    private static final int CHUNK_SIZE = 3;
    private static final int CHUNK_DATA = 4;
    private static final int CHUNK_END = 5;
    private static final int TRAILERS = 6;

    private static final byte[] HTTP_1_1 = "HTTP/1.1 ".getBytes(StandardCharsets.US_ASCII);
    private static final AsciiString[] HOP_BY_HOP = {
            HttpHeaderNames.CONNECTION, HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.PROXY_CONNECTION,
            HttpHeaderNames.TE, HttpHeaderNames.TRAILER, HttpHeaderNames.UPGRADE, AsciiString.cached("http2-settings"),
            HttpHeaderNames.EXPECT };

    private final Sink sink;
    private int state = PASS;
    /** FIXED: body bytes still to come; CHUNK_DATA: the chunk's bytes still to come. */
    private long remaining;
    /** Bytes kept from earlier reads: an unfinished head or chunk line. */
    private ByteBuf kept;

    RawAnswers(Sink sink) {
        this.sink = sink;
    }

    /**
     * Whether the next answer is to be read as bytes; set when an exchange takes the connection, which then has
     * no answer under way.
     */
    void expect(boolean raw) {
        state = raw ? HEAD : PASS;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (state == PASS && kept == null || !(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ByteBuf buf = kept == null ? in : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), kept, in);
        kept = null;
        try {
            while (state != PASS && buf.isReadable()) { // answers one after another, when each is asked for in time
                int at = buf.readerIndex();
                int was = state;
                read(ctx, buf);
                if (buf.readerIndex() == at && state == was) {
                    break; // the rest comes in a later read
                }
            }
        } finally {
            if (buf.refCnt() > 0 && buf.isReadable() && state != PASS) {
                kept = buf;
            } else if (buf.refCnt() > 0 && buf.isReadable() && ctx.channel().isActive()) {
                ctx.fireChannelRead(buf); // past the answer, or handed to the parsed path
            } else if (buf.refCnt() > 0) {
                buf.release();
            }
        }
    }

    private void read(ChannelHandlerContext ctx, ByteBuf buf) {
        if (state == HEAD) {
            int end = headEnd(buf);
            if (end < 0) {
                if (buf.readableBytes() > MAX_HEAD_BYTES) {
                    state = PASS; // the decoder behind refuses it
                }
                return;
            }
            if (!head(ctx, buf, end)) {
                state = PASS;
                return;
            }
        }
        if (state == FIXED) {
            int n = (int) Math.min(buf.readableBytes(), remaining);
            remaining -= n;
            if (remaining == 0) {
                state = PASS;
                sink.rawBody(buf.readRetainedSlice(n), true);
            } else if (n > 0) {
                sink.rawBody(buf.readRetainedSlice(n), false);
            }
            return;
        }
        if (state >= CHUNK_SIZE) {
            chunks(ctx, buf);
        }
    }

    /** The index just past the head's blank line, or -1 while the head is not all in. */
    private static int headEnd(ByteBuf buf) {
        int from = buf.readerIndex();
        int to = buf.writerIndex();
        for (int lf; (lf = buf.indexOf(from, to, (byte) '\n')) >= 0; from = lf + 1) {
            if (lf + 2 < to && buf.getByte(lf + 1) == '\r' && buf.getByte(lf + 2) == '\n') {
                return lf + 3;
            }
            if (lf + 1 < to && buf.getByte(lf + 1) == '\n') {
                return lf + 2; // bare line feeds: refused below, but the head is all in
            }
        }
        return -1;
    }

    /**
     * Scans the head in {@code buf} up to {@code end}: when it is one to relay as it is, passes the head on, sets
     * the body's state and returns true; else returns false with nothing read.
     */
    private boolean head(ChannelHandlerContext ctx, ByteBuf buf, int end) {
        int start = buf.readerIndex();
        // Status line: "HTTP/1.1 " three digits, then a space and a reason or nothing.
        if (end - start < 14) {
            return false;
        }
        for (int i = 0; i < HTTP_1_1.length; i++) {
            if (buf.getByte(start + i) != HTTP_1_1[i]) {
                return false;
            }
        }
        int status = 0;
        for (int i = 9; i < 12; i++) {
            int d = buf.getByte(start + i) - '0';
            if (d < 0 || d > 9) {
                return false;
            }
            status = status * 10 + d;
        }
        if (status < 200 || status == 502 || status == 503 || status == 504) {
            return false;
        }
        int lineEnd = lineEnd(buf, start, end);
        if (lineEnd < 0 || lineEnd != start + 12 && buf.getByte(start + 12) != ' ') {
            return false;
        }
        long length = -1;
        boolean chunked = false;
        boolean close = false;
        AsciiString[] stamps = sink.stampNames();
        // First pass: every line well formed, the framing known, nothing the parsed path would treat otherwise.
        for (int line = lineEnd + 2; line < end - 2; ) {
            int eol = lineEnd(buf, line, end);
            if (eol < 0) {
                return false;
            }
            byte first = buf.getByte(line);
            int colon = buf.indexOf(line, eol, (byte) ':');
            if (first == ' ' || first == '\t' || colon <= line || isWhitespace(buf.getByte(colon - 1))) {
                return false;
            }
            int valueStart = colon + 1;
            int valueEnd = eol;
            while (valueStart < valueEnd && isWhitespace(buf.getByte(valueStart))) {
                valueStart++;
            }
            while (valueEnd > valueStart && isWhitespace(buf.getByte(valueEnd - 1))) {
                valueEnd--;
            }
            int nameLength = colon - line;
            if (is(buf, line, nameLength, HttpHeaderNames.CONTENT_LENGTH)) {
                if (length >= 0 || (length = digits(buf, valueStart, valueEnd)) < 0) {
                    return false; // a second length, or not a number
                }
            } else if (is(buf, line, nameLength, HttpHeaderNames.TRANSFER_ENCODING)) {
                if (chunked || !is(buf, valueStart, valueEnd - valueStart, HttpHeaderValues.CHUNKED)) {
                    return false;
                }
                chunked = true;
            } else if (is(buf, line, nameLength, HttpHeaderNames.CONNECTION)) {
                if (is(buf, valueStart, valueEnd - valueStart, HttpHeaderValues.CLOSE)) {
                    close = true;
                } else if (!is(buf, valueStart, valueEnd - valueStart, HttpHeaderValues.KEEP_ALIVE)) {
                    return false; // a list, or names of headers to leave out: the parsed path's
                }
            }
            line = eol + 2;
        }
        boolean bodiless = status == 204 || status == 304;
        if (chunked && length >= 0 || bodiless && (chunked || length >= 0) || !bodiless && !chunked && length < 0) {
            return false; // conflicting framing, framing where none belongs, or a body up to the close
        }
        // Second pass: the lines to relay, copied.
        ByteBuf out = ctx.alloc().buffer(end - start + 128);
        out.writeBytes(buf, start, lineEnd + 2 - start);
        for (int line = lineEnd + 2; line < end - 2; ) {
            int eol = lineEnd(buf, line, end);
            int nameLength = buf.indexOf(line, eol, (byte) ':') - line;
            if (!isAny(buf, line, nameLength, HOP_BY_HOP) && !isAny(buf, line, nameLength, stamps)) {
                out.writeBytes(buf, line, eol + 2 - line);
            }
            line = eol + 2;
        }
        buf.readerIndex(end);
        boolean last = bodiless || length == 0;
        if (last) {
            state = PASS;
        } else if (chunked) {
            state = CHUNK_SIZE;
        } else {
            state = FIXED;
            remaining = length;
        }
        sink.rawHead(out, status, !close, last);
        return true;
    }

    /**
     * Follows chunked framing through {@code buf}, passing on what it has gone past; a line not all in stays in
     * {@code buf} for the next read. Malformed framing closes the connection: the exchange is cut, as it is when
     * the parsed path cannot read a chunk.
     */
    private void chunks(ChannelHandlerContext ctx, ByteBuf buf) {
        int from = buf.readerIndex();
        int at = from;
        int to = buf.writerIndex();
        boolean last = false;
        loop:
        while (at < to) {
            switch (state) {
                case CHUNK_DATA -> {
                    int n = (int) Math.min(to - at, remaining);
                    at += n;
                    remaining -= n;
                    if (remaining == 0) {
                        state = CHUNK_END;
                    }
                }
                case CHUNK_END -> {
                    if (to - at < 2) {
                        break loop;
                    }
                    if (buf.getByte(at) != '\r' || buf.getByte(at + 1) != '\n') {
                        malformed(ctx, buf);
                        return;
                    }
                    at += 2;
                    state = CHUNK_SIZE;
                }
                case CHUNK_SIZE -> {
                    int eol = framingLineEnd(buf, at, to);
                    if (eol == MALFORMED) {
                        malformed(ctx, buf);
                        return;
                    } else if (eol == INCOMPLETE) {
                        break loop;
                    }
                    long size = chunkSize(buf, at, eol);
                    if (size < 0) {
                        malformed(ctx, buf);
                        return;
                    }
                    at = eol + 2;
                    if (size == 0) {
                        state = TRAILERS;
                    } else {
                        state = CHUNK_DATA;
                        remaining = size;
                    }
                }
                default -> { // TRAILERS: lines up to a blank one
                    int eol = framingLineEnd(buf, at, to);
                    if (eol == MALFORMED) {
                        malformed(ctx, buf);
                        return;
                    } else if (eol == INCOMPLETE) {
                        break loop;
                    }
                    byte first = buf.getByte(at);
                    if (eol > at && (first == ' ' || first == '\t' || buf.indexOf(at, eol, (byte) ':') <= at)) {
                        malformed(ctx, buf);
                        return;
                    }
                    boolean blank = eol == at;
                    at = eol + 2;
                    if (blank) {
                        last = true;
                        state = PASS;
                        break loop;
                    }
                }
            }
        }
        if (at > from || last) {
            buf.readerIndex(at);
            sink.rawBody(buf.retainedSlice(from, at - from), last);
        }
    }

    private void malformed(ChannelHandlerContext ctx, ByteBuf buf) {
        buf.skipBytes(buf.readableBytes());
        state = PASS;
        ctx.fireExceptionCaught(new IllegalArgumentException("malformed chunked framing in an upstream answer"));
    }

    /**
     * The index of the CR ending the chunk-size or trailer line at {@code at}; {@link #INCOMPLETE} when the rest is
     * still to come, {@link #MALFORMED} for a bare LF or a line longer than {@link #MAX_LINE_BYTES}.
     */
    private static int framingLineEnd(ByteBuf buf, int at, int to) {
        int eol = lineEnd(buf, at, to);
        if (eol >= 0) {
            return eol;
        }
        return buf.indexOf(at, to, (byte) '\n') >= 0 || to - at > MAX_LINE_BYTES ? MALFORMED : INCOMPLETE;
    }

    /** The index of the CR of the CRLF ending the line at {@code from}, or -1 (no LF, or a bare LF). */
    private static int lineEnd(ByteBuf buf, int from, int to) {
        int lf = buf.indexOf(from, to, (byte) '\n');
        return lf > from && buf.getByte(lf - 1) == '\r' ? lf - 1 : -1;
    }

    /** A chunk's size in hex, extensions after {@code ;} ignored; -1 when it is not one. */
    private static long chunkSize(ByteBuf buf, int from, int to) {
        long size = 0;
        int i = from;
        for (; i < to; i++) {
            int b = buf.getByte(i);
            int d = b >= '0' && b <= '9' ? b - '0' : (b | 0x20) >= 'a' && (b | 0x20) <= 'f' ? (b | 0x20) - 'a' + 10 : -1;
            if (d < 0) {
                break;
            }
            if (i - from >= 15) {
                return -1;
            }
            size = size << 4 | d;
        }
        if (i == from) {
            return -1;
        }
        while (i < to && isWhitespace(buf.getByte(i))) {
            i++;
        }
        return i == to || buf.getByte(i) == ';' ? size : -1;
    }

    /** The decimal number {@code buf[from, to)}, or -1 when it is not one (or too long to be a length). */
    private static long digits(ByteBuf buf, int from, int to) {
        if (from == to || to - from > 18) {
            return -1;
        }
        long n = 0;
        for (int i = from; i < to; i++) {
            int d = buf.getByte(i) - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            n = n * 10 + d;
        }
        return n;
    }

    private static boolean isAny(ByteBuf buf, int from, int length, AsciiString[] names) {
        for (AsciiString name : names) {
            if (is(buf, from, length, name)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code buf[from, from + length)} is {@code name}, ignoring the case of letters. */
    private static boolean is(ByteBuf buf, int from, int length, AsciiString name) {
        if (length != name.length()) {
            return false;
        }
        byte[] n = name.array();
        int off = name.arrayOffset();
        for (int i = 0; i < length; i++) {
            if (lower(buf.getByte(from + i)) != lower(n[off + i])) {
                return false;
            }
        }
        return true;
    }

    private static int lower(byte b) {
        return b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b;
    }

    private static boolean isWhitespace(byte b) {
        return b == ' ' || b == '\t';
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    private void release() {
        if (kept != null) {
            kept.release();
            kept = null;
        }
        state = PASS;
    }
}
