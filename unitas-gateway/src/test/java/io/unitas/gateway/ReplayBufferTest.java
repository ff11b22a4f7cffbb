package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;

/** The request body kept for a retry: sent again whole to each attempt, up to its limit, and freed at the end. */
class ReplayBufferTest {

    private static HttpContent piece(String text) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    }

    private static HttpContent piece(int bytes) {
        return new DefaultHttpContent(Unpooled.buffer(bytes).writerIndex(bytes));
    }

    @Test
    void eachReplayGetsTheWholeBodyFromItsStart_andTheBufferKeepsIt() {
        ReplayBuffer buffer = new ReplayBuffer();
        HttpContent a = piece("ab");
        HttpContent b = piece("cd");
        buffer.keep(a);
        buffer.keep(b);

        for (int attempt = 0; attempt < 2; attempt++) {
            StringBuilder sent = new StringBuilder();
            buffer.replay(c -> {
                sent.append(c.content().toString(StandardCharsets.US_ASCII));
                c.release();
            });
            assertThat(sent).hasToString("abcd");
        }
        assertThat(a.refCnt()).isOne();

        buffer.release();
        assertThat(a.refCnt()).isZero();
        assertThat(b.refCnt()).isZero();
    }

    @Test
    void aBodyFitsUpToTheLimit_notAByteMore() {
        ReplayBuffer buffer = new ReplayBuffer();
        buffer.keep(piece(ReplayBuffer.MAX_BYTES - 10));

        assertThat(buffer.fits(piece(10))).isTrue();
        assertThat(buffer.fits(piece(11))).isFalse();
        buffer.release();
    }

    @Test
    void handingOverGivesThePiecesInOrder_andKeepsNothing() {
        ReplayBuffer buffer = new ReplayBuffer();
        assertThat(buffer.isEmpty()).isTrue();
        HttpContent a = piece("a");
        HttpContent b = piece("b");
        buffer.keep(a);
        buffer.keep(b);

        List<HttpContent> taken = new ArrayList<>();
        buffer.handOver(taken::add);

        assertThat(taken).containsExactly(a, b);
        assertThat(buffer.isEmpty()).isTrue();
        assertThat(a.refCnt()).isOne();
        taken.forEach(HttpContent::release);
    }
}
