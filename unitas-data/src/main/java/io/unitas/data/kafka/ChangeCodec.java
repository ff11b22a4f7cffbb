package io.unitas.data.kafka;

import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeEnvelope;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * A change as a Kafka record's value: a version byte, then origin, unit, sequence, previous, entity type, key, the
 * write time (epoch seconds and nanos) and the payload. Binary, so a payload costs its length and no escaping; the
 * version byte lets a later layout be read beside this one.
 */
final class ChangeCodec {

    static final byte VERSION = 1;

    private ChangeCodec() {}

    static byte[] encode(ChangeEnvelope change) {
        byte[] payload = change.payload();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + payload.length);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeUTF(change.origin().id());
            out.writeUTF(change.unit());
            out.writeLong(change.sequence());
            out.writeLong(change.previous());
            out.writeUTF(change.entityType());
            out.writeUTF(change.key());
            out.writeLong(change.writtenAt().getEpochSecond());
            out.writeInt(change.writtenAt().getNano());
            out.writeInt(payload.length);
            out.write(payload);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // not on a byte array
        }
        return bytes.toByteArray();
    }

    /**
     * The change in {@code value}.
     *
     * @throws IllegalArgumentException when {@code value} is not a change of a layout this version reads
     */
    static ChangeEnvelope decode(byte[] value) {
        if (value == null || value.length == 0) {
            throw new IllegalArgumentException("change record: empty (expected: version " + VERSION + " layout)");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalArgumentException("change record: version " + version + " (expected: " + VERSION
                                                   + ")");
            }
            Region origin = Region.of(in.readUTF());
            String unit = in.readUTF();
            long sequence = in.readLong();
            long previous = in.readLong();
            String entityType = in.readUTF();
            String key = in.readUTF();
            Instant writtenAt = Instant.ofEpochSecond(in.readLong(), in.readInt());
            int length = in.readInt();
            if (length < 0 || length > in.available()) {
                throw new IllegalArgumentException("change record: payload of " + length + " bytes (expected: <= "
                                                   + in.available() + ", what follows)");
            }
            byte[] payload = in.readNBytes(length);
            return new ChangeEnvelope(unit, origin, sequence, previous, entityType, key, payload, writtenAt);
        } catch (IOException e) {
            throw new IllegalArgumentException("change record: truncated after " + value.length + " bytes", e);
        }
    }
}
