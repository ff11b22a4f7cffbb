package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60) // a writer that loses its blocks hangs rather than fails
class BlockWriterTest {

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    @Test
    void writesEverythingInOrder_acrossManyBlocks_andRowsLargerThanABlock() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (BlockWriter w = new BlockWriter(out)) {
            for (int i = 0; i < 50_000; i++) {
                byte[] row = ("row " + i + "\n").getBytes();
                w.write(row, 0, row.length);
                expected.write(row);
            }
            byte[] big = bytes(3 << 20);
            for (int i = 0; i < 5; i++) { // more than the blocks in the pool, which must not shrink
                w.write(big, 0, big.length);
                expected.write(big);
                w.write(big, 5, 7);
                expected.write(big, 5, 7);
            }
            w.finish();
        }
        assertThat(Arrays.equals(out.toByteArray(), expected.toByteArray())).isTrue();
    }

    @Test
    void abandonedBeforeTheFirstBlockFills_writesNothing() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (BlockWriter w = new BlockWriter(out)) {
            w.write(bytes(1000), 0, 1000);
        }
        assertThat(out.size()).isZero();
    }

    @Test
    void aFailingStream_failsTheWriter_withTheStreamsException() {
        OutputStream failing = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("disk full");
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                throw new IOException("disk full");
            }
        };
        assertThatThrownBy(() -> {
            try (BlockWriter w = new BlockWriter(failing)) {
                byte[] b = bytes(1 << 16);
                for (int i = 0; i < 100; i++) {
                    w.write(b, 0, b.length);
                }
                w.finish();
            }
        }).isInstanceOf(IOException.class).hasMessage("disk full");
    }
}
