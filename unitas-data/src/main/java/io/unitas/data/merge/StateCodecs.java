package io.unitas.data.merge;

import io.unitas.core.crdt.Dot;
import io.unitas.core.crdt.LwwRegister;
import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.OrMap;
import io.unitas.core.crdt.OrSet;
import io.unitas.core.crdt.PnCounter;
import io.unitas.core.crdt.Siblings;
import io.unitas.core.crdt.VersionVector;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.TreeMap;

/**
 * The binary state codecs: a tag byte naming the state's kind, then its parts, every set and map written in a fixed
 * order (replicas and dots by id, elements and keys by their encoded bytes), so equal states give equal bytes.
 */
final class StateCodecs {

    private static final byte LWW = 1;
    private static final byte PN = 2;
    private static final byte OR_SET = 3;
    private static final byte OR_MAP = 4;
    private static final byte SIBLINGS = 5;
    private static final Comparator<Dot> DOTS = Comparator.comparing(Dot::replica).thenComparingLong(Dot::counter);

    static final Codec<PnCounter> COUNTER = new Codec<>() {
        @Override
        public byte[] encode(PnCounter state) {
            return write(PN, out -> {
                counters(out, state.increments());
                counters(out, state.decrements());
            });
        }

        @Override
        public PnCounter decode(byte[] bytes) {
            return read(bytes, PN, "a PN-counter", in -> PnCounter.of(counters(in), counters(in)));
        }
    };

    private StateCodecs() {}

    record LwwCodec<V>(Codec<V> values) implements Codec<LwwRegister<V>> {
        @Override
        public byte[] encode(LwwRegister<V> state) {
            return write(LWW, out -> {
                bytes(out, values.encode(state.value()));
                vector(out, state.version());
                out.writeLong(state.timestamp());
                out.writeUTF(state.region());
            });
        }

        @Override
        public LwwRegister<V> decode(byte[] bytes) {
            return read(bytes, LWW, "a last-writer-wins register", in -> {
                V value = values.decode(bytes(in));
                VersionVector version = vector(in);
                long timestamp = in.readLong();
                return LwwRegister.of(value, version, timestamp, in.readUTF());
            });
        }
    }

    record OrSetCodec<E>(Codec<E> elements) implements Codec<OrSet<E>> {
        @Override
        public byte[] encode(OrSet<E> state) {
            return write(OR_SET, out -> {
                List<byte[]> keys = new ArrayList<>();
                java.util.Map<byte[], java.util.Set<Dot>> byKey = new java.util.IdentityHashMap<>();
                state.entries().forEach((element, dots) -> {
                    byte[] key = elements.encode(element);
                    keys.add(key);
                    byKey.put(key, dots);
                });
                keys.sort(Arrays::compare);
                out.writeInt(keys.size());
                for (byte[] key : keys) {
                    bytes(out, key);
                    dots(out, byKey.get(key));
                }
                vector(out, state.context());
            });
        }

        @Override
        public OrSet<E> decode(byte[] bytes) {
            return read(bytes, OR_SET, "an OR-set", in -> {
                int n = count(in);
                java.util.Map<E, java.util.Set<Dot>> entries = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    E element = elements.decode(bytes(in));
                    entries.put(element, dots(in));
                }
                return OrSet.of(entries, vector(in));
            });
        }
    }

    record OrMapCodec<K, V>(Codec<K> keys, Codec<V> values, MergePolicy<V> valuePolicy) implements Codec<OrMap<K, V>> {
        @Override
        public byte[] encode(OrMap<K, V> state) {
            return write(OR_MAP, out -> {
                List<byte[]> encoded = new ArrayList<>();
                java.util.Map<byte[], java.util.Map<Dot, V>> byKey = new java.util.IdentityHashMap<>();
                state.entries().forEach((key, writes) -> {
                    byte[] k = keys.encode(key);
                    encoded.add(k);
                    byKey.put(k, writes);
                });
                encoded.sort(Arrays::compare);
                out.writeInt(encoded.size());
                for (byte[] k : encoded) {
                    bytes(out, k);
                    TreeMap<Dot, V> writes = new TreeMap<>(DOTS);
                    writes.putAll(byKey.get(k));
                    out.writeInt(writes.size());
                    for (java.util.Map.Entry<Dot, V> w : writes.entrySet()) {
                        dot(out, w.getKey());
                        bytes(out, values.encode(w.getValue()));
                    }
                }
                vector(out, state.context());
            });
        }

        @Override
        public OrMap<K, V> decode(byte[] bytes) {
            return read(bytes, OR_MAP, "an OR-map", in -> {
                int n = count(in);
                java.util.Map<K, java.util.Map<Dot, V>> entries = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    K key = keys.decode(bytes(in));
                    int m = count(in);
                    java.util.Map<Dot, V> writes = new HashMap<>();
                    for (int j = 0; j < m; j++) {
                        Dot dot = dot(in);
                        writes.put(dot, values.decode(bytes(in)));
                    }
                    entries.put(key, writes);
                }
                return OrMap.of(valuePolicy, entries, vector(in));
            });
        }
    }

    record SiblingsCodec<V>(Codec<V> values) implements Codec<Siblings<V>> {
        @Override
        public byte[] encode(Siblings<V> state) {
            return write(SIBLINGS, out -> {
                List<Siblings.Version<V>> versions = state.versions();
                out.writeInt(versions.size());
                for (Siblings.Version<V> v : versions) {
                    vector(out, v.version());
                    bytes(out, values.encode(v.value()));
                }
            });
        }

        @Override
        public Siblings<V> decode(byte[] bytes) {
            return read(bytes, SIBLINGS, "siblings", in -> {
                int n = count(in);
                List<Siblings.Version<V>> versions = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    VersionVector version = vector(in);
                    versions.add(new Siblings.Version<>(version, values.decode(bytes(in))));
                }
                return Siblings.of(versions);
            });
        }
    }

    @FunctionalInterface
    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    @FunctionalInterface
    private interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private static byte[] write(byte tag, Writer body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(tag);
            body.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return bytes.toByteArray();
    }

    private static <T> T read(byte[] bytes, byte tag, String what, Reader<T> body) {
        if (bytes.length == 0 || bytes[0] != tag) {
            throw new IllegalArgumentException("state: " + (bytes.length == 0 ? "no bytes" : "tag " + bytes[0])
                                               + " (expected: " + what + ", tag " + tag + ")");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 1, bytes.length - 1))) {
            T state = body.read(in);
            if (in.available() > 0) {
                throw new IllegalArgumentException("state: " + in.available() + " bytes after " + what
                                                   + " (expected: none)");
            }
            return state;
        } catch (IOException e) {
            throw new IllegalArgumentException("state: truncated (expected: " + what + ")", e);
        }
    }

    private static void bytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] bytes(DataInputStream in) throws IOException {
        int n = count(in);
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    private static int count(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IllegalArgumentException("state: a count of " + n + " with " + in.available()
                                               + " bytes left (expected: 0 to the bytes left)");
        }
        return n;
    }

    private static void counters(DataOutputStream out, java.util.Map<String, Long> counters) throws IOException {
        TreeMap<String, Long> sorted = new TreeMap<>(counters);
        out.writeInt(sorted.size());
        for (java.util.Map.Entry<String, Long> e : sorted.entrySet()) {
            out.writeUTF(e.getKey());
            out.writeLong(e.getValue());
        }
    }

    private static java.util.Map<String, Long> counters(DataInputStream in) throws IOException {
        int n = count(in);
        java.util.Map<String, Long> counters = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            counters.put(in.readUTF(), in.readLong());
        }
        return counters;
    }

    private static void vector(DataOutputStream out, VersionVector vector) throws IOException {
        counters(out, vector.counters());
    }

    private static VersionVector vector(DataInputStream in) throws IOException {
        return VersionVector.of(counters(in));
    }

    private static void dot(DataOutputStream out, Dot dot) throws IOException {
        out.writeUTF(dot.replica());
        out.writeLong(dot.counter());
    }

    private static Dot dot(DataInputStream in) throws IOException {
        return new Dot(in.readUTF(), in.readLong());
    }

    private static void dots(DataOutputStream out, java.util.Set<Dot> dots) throws IOException {
        List<Dot> sorted = new ArrayList<>(dots);
        sorted.sort(DOTS);
        out.writeInt(sorted.size());
        for (Dot d : sorted) {
            dot(out, d);
        }
    }

    private static java.util.Set<Dot> dots(DataInputStream in) throws IOException {
        int n = count(in);
        java.util.Set<Dot> dots = new HashSet<>();
        for (int i = 0; i < n; i++) {
            dots.add(dot(in));
        }
        return dots;
    }
}
