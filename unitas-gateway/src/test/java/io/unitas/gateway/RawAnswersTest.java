package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;

/**
 * Upstream answers read as bytes: which are taken as they are and which go on to the parsed path, the head relayed
 * without its hop-by-hop lines, the body's bytes relayed exactly and its end found, whatever the reads the answer
 * comes in (each valid answer split at random points, many times over), and malformed framing refused.
 */
class RawAnswersTest {

    private static final AsciiString[] STAMPS = {AsciiString.cached("x-unitas-served-by"),
                                                AsciiString.cached("x-unitas-route")};

    /** Records what it is given; asks for the next answer as bytes again when one ends, as a pooled link would. */
    static final class Recorder extends ChannelInboundHandlerAdapter implements RawAnswers.Sink {
        RawAnswers raw;
        final ByteArrayOutputStream head = new ByteArrayOutputStream();
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        int status;
        boolean keepAlive;
        int heads;
        int ends;
        boolean askAgain;
        final List<Object> parsed = new ArrayList<>();
        final List<Throwable> failures = new ArrayList<>();

        @Override
        public AsciiString[] stampNames() {
            return STAMPS;
        }

        @Override
        public void rawHead(ByteBuf h, int status, boolean keepAlive, boolean last) {
            assertThat(ends).as("a head after the answer's end").isEqualTo(heads);
            heads++;
            this.status = status;
            this.keepAlive = keepAlive;
            head.writeBytes(bytes(h));
            h.release();
            if (last) {
                ended();
            }
        }

        @Override
        public void rawBody(ByteBuf b, boolean last) {
            assertThat(heads).as("body bytes before a head").isEqualTo(ends + 1);
            body.writeBytes(bytes(b));
            b.release();
            if (last) {
                ended();
            }
        }

        private void ended() {
            ends++;
            if (askAgain) {
                raw.expect(true);
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpContent c) {
                body.writeBytes(bytes(c.content()));
            }
            parsed.add(msg instanceof HttpResponse ? msg : msg instanceof LastHttpContent ? "last" : "content");
            if (msg instanceof HttpResponse r) {
                status = r.status().code();
            }
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failures.add(cause);
        }

        String head() {
            return head.toString(StandardCharsets.ISO_8859_1);
        }

        String body() {
            return body.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] bytes = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), bytes);
        return bytes;
    }

    /** A channel reading answers as bytes (or parsed, when {@code raw} is false). */
    private static Recorder channel(boolean raw, List<EmbeddedChannel> made) {
        Recorder r = new Recorder();
        r.raw = new RawAnswers(r);
        EmbeddedChannel ch = new EmbeddedChannel(r.raw, new Connections.Answers(), r);
        r.raw.expect(raw);
        made.add(ch);
        return r;
    }

    private static void feed(EmbeddedChannel ch, String answer, int[] cuts) {
        byte[] bytes = answer.getBytes(StandardCharsets.ISO_8859_1);
        int from = 0;
        for (int cut : cuts) {
            ch.writeInbound(Unpooled.wrappedBuffer(bytes, from, cut - from));
            from = cut;
        }
        ch.writeInbound(Unpooled.wrappedBuffer(bytes, from, bytes.length - from));
    }

    private static Recorder read(boolean raw, String answer, int... cuts) {
        List<EmbeddedChannel> made = new ArrayList<>();
        Recorder r = channel(raw, made);
        feed(made.get(0), answer, cuts);
        assertThat(made.get(0).finishAndReleaseAll()).isFalse();
        return r;
    }

    /** Valid answers taken as bytes: the answer, the head relayed, the body relayed. */
    private static final String[][] TAKEN = {
            {"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-kept: yes\r\n\r\nhello",
             "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-kept: yes\r\n", "hello"},
            {"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n"
             + "X-Unitas-Served-By: eu\r\nx-unitas-route: home\r\nTE: trailers\r\n\r\nok",
             "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", "ok"},
            {"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
             "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n", "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"},
            {"HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\ntrailer: x-sum\r\n\r\n"
             + "A;name=value\r\n0123456789\r\n3 \r\nabc\r\n0\r\nx-sum: 42\r\nx-more: 1\r\n\r\n",
             "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n",
             "A;name=value\r\n0123456789\r\n3 \r\nabc\r\n0\r\nx-sum: 42\r\nx-more: 1\r\n\r\n"},
            {"HTTP/1.1 204 No Content\r\nx-a: b\r\n\r\n", "HTTP/1.1 204 No Content\r\nx-a: b\r\n", ""},
            {"HTTP/1.1 304 Not Modified\r\netag: \"x\"\r\n\r\n", "HTTP/1.1 304 Not Modified\r\netag: \"x\"\r\n", ""},
            {"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n", "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n",
             ""},
            {"HTTP/1.1 200\r\ncontent-length:3\r\n\r\nabc", "HTTP/1.1 200\r\ncontent-length:3\r\n", "abc"},
            {"HTTP/1.1 500 Oops\r\nconnection: close\r\ncontent-length: 1\r\n\r\nx",
             "HTTP/1.1 500 Oops\r\ncontent-length: 1\r\n", "x"},
    };

    @Test
    void validAnswersAreRelayedAsTheyCameLessTheirHopByHopLinesAndTheStampsWhateverTheReads() {
        Random random = new Random(20261202);
        for (String[] t : TAKEN) {
            int n = t[0].length();
            for (int round = 0; round < 300; round++) {
                int[] cuts = round == 0 ? new int[0]
                             : round == 1 ? IntStream.range(1, n).toArray() // byte by byte
                             : random.ints(random.nextInt(6), 1, n).sorted().distinct().toArray();
                Recorder r = read(true, t[0], cuts);
                assertThat(r.parsed).as("%s cut at %s", t[0], Arrays.toString(cuts)).isEmpty();
                assertThat(r.failures).isEmpty();
                assertThat(r.heads).isEqualTo(1);
                assertThat(r.ends).as("%s cut at %s", t[0], Arrays.toString(cuts)).isEqualTo(1);
                assertThat(r.head()).isEqualTo(t[1]);
                assertThat(r.body()).isEqualTo(t[2]);
                assertThat(r.keepAlive).isEqualTo(!t[0].contains("connection: close"));
            }
        }
    }

    @Test
    void answersOneAfterAnotherInOneReadAreEachTakenWhenAskedFor() {
        List<EmbeddedChannel> made = new ArrayList<>();
        Recorder r = channel(true, made);
        r.askAgain = true;
        feed(made.get(0), TAKEN[0][0] + TAKEN[2][0] + TAKEN[4][0], new int[0]);
        assertThat(r.ends).isEqualTo(3);
        assertThat(r.head()).isEqualTo(TAKEN[0][1] + TAKEN[2][1] + TAKEN[4][1]);
        assertThat(r.body()).isEqualTo(TAKEN[0][2] + TAKEN[2][2]);
        assertThat(made.get(0).finishAndReleaseAll()).isFalse();
    }

    /**
     * Answers left to the parsed path, whole and in pieces: each comes out parsed, its body intact (or refused by the
     * parsed path, where the body is {@code null}).
     */
    private static final String[][] PARSED = {
            {"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok", "ok"},
            {"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 3\r\n\r\nbad", "bad"},
            {"HTTP/1.1 503 Unavailable\r\ncontent-length: 0\r\n\r\n", ""},
            {"HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok", "ok"},
            {"HTTP/1.1 200 OK\r\nx-folded: a\r\n b\r\ncontent-length: 2\r\n\r\nok", "ok"},
            {"HTTP/1.1 200 OK\r\nconnection: x-private\r\nx-private: 1\r\ncontent-length: 2\r\n\r\nok", "ok"},
            {"HTTP/1.1 200 OK\r\nconnection: close, x-private\r\ncontent-length: 2\r\n\r\nok", "ok"},
            {"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", "ok"},
            {"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 2\r\n\r\nok", null},
            {"HTTP/1.1 200 OK\r\ncontent-length : 2\r\n\r\nok", "ok"},
            {"HTTP/1.1 200 OK\nContent-Length: 2\n\nok", null},
            {"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n", ""},
    };

    @Test
    void answersNotTakenAsTheyAreGoOnParsedWhateverTheReads() {
        Random random = new Random(42);
        for (String[] t : PARSED) {
            int n = t[0].length();
            for (int round = 0; round < 100; round++) {
                int[] cuts = round == 0 ? new int[0] : random.ints(random.nextInt(5), 1, n).sorted().distinct().toArray();
                Recorder r = read(true, t[0], cuts);
                assertThat(r.heads).as("%s cut at %s", t[0], Arrays.toString(cuts)).isZero();
                assertThat(r.parsed).as(t[0]).isNotEmpty();
                if (t[1] != null) {
                    assertThat(r.parsed).as(t[0]).contains("last");
                    assertThat(r.body()).isEqualTo(t[1]);
                } else { // refused by the parsed path, as before
                    assertThat(((HttpResponse) r.parsed.get(0)).decoderResult().isFailure()).isTrue();
                }
                assertThat(r.failures).isEmpty();
            }
        }
    }

    @Test
    void aBodyUpToTheClosesEndGoesOnParsed() {
        List<EmbeddedChannel> made = new ArrayList<>();
        Recorder r = channel(true, made);
        feed(made.get(0), "HTTP/1.1 200 OK\r\n\r\nuntil the end", new int[] {10});
        made.get(0).finishAndReleaseAll();
        assertThat(r.heads).isZero();
        assertThat(r.parsed).contains("last");
        assertThat(r.body()).isEqualTo("until the end");
    }

    @Test
    void anExchangeThatDidNotAskForBytesGetsEveryAnswerParsed() {
        Recorder r = read(false, TAKEN[2][0], 20, 60);
        assertThat(r.heads).isZero();
        assertThat(r.parsed).hasSize(4).endsWith("last");
        assertThat(r.body()).isEqualTo("abcde");
    }

    @Test
    void anAnswerToHeadHasNoBodyWhateverItsHeadSays() {
        List<EmbeddedChannel> made = new ArrayList<>();
        Recorder r = channel(false, made);
        made.get(0).pipeline().get(Connections.Answers.class).head = true;
        feed(made.get(0), "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n", new int[0]);
        assertThat(r.parsed).hasSize(2).endsWith("last");
        assertThat(made.get(0).finishAndReleaseAll()).isFalse();
    }

    @Test
    void bytesPastTheAnswersEndGoToTheParsedPath() {
        Recorder r = read(true, TAKEN[0][0] + "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        assertThat(r.ends).isEqualTo(1);
        assertThat(r.parsed).hasSize(2); // the stray answer, parsed: a link without an exchange closes on it
    }

    @Test
    void malformedChunkedFramingFailsTheConnectionWhateverTheReads() {
        String[] bad = {
                "3\r\nabc\r\nzz\r\nxyz\r\n0\r\n\r\n", // not a size
                "3\r\nabcXY2\r\nde\r\n0\r\n\r\n", // no line break after the data
                "3\nabc\r\n0\r\n\r\n", // a bare line feed
                "\r\n3\r\nabc\r\n0\r\n\r\n", // an empty size line
                "10000000000000000\r\n", // a size too large
                "0\r\n bad trailer\r\n\r\n", // a folded trailer
                "0\r\nno colon\r\n\r\n",
        };
        Random random = new Random(7);
        for (String b : bad) {
            String answer = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + b;
            for (int round = 0; round < 50; round++) {
                int n = answer.length();
                int[] cuts = round == 0 ? new int[0] : random.ints(random.nextInt(5), 1, n).sorted().distinct().toArray();
                Recorder r = read(true, answer, cuts);
                assertThat(r.failures).as("%s cut at %s", b, Arrays.toString(cuts)).hasSize(1);
                assertThat(r.ends).isZero();
            }
        }
    }

    @Test
    void anOverlongChunkLineFailsTheConnection() {
        Recorder r = read(true, "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1;" + "x".repeat(9000));
        assertThat(r.failures).hasSize(1);
    }

    @Test
    void theCodecsRecordOfRequestsCanBeKeptInStep() {
        assertThat(ServerCodecs.available()).as("HttpServerCodec's pollMethod, which this Netty version must have")
                                            .isTrue();
    }
}
