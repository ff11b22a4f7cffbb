package io.unitas.data.kafka;

import io.unitas.core.Region;
import io.unitas.data.outbox.StoppedStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one target region reports back to one origin on the compacted acknowledgements topic, keyed
 * {@code origin>target} so compaction keeps the latest: the last sequence applied of each unit, the unit streams
 * stopped there, and whether the target lost records it had not read (retention passed its offset) and asks for
 * them again.
 */
record Acknowledgement(Region origin, Region target, Map<String, Long> positions, List<StoppedStream> stopped,
                       long replayRequest) {

    byte[] key() {
        return (origin.id() + ">" + target.id()).getBytes(StandardCharsets.UTF_8);
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(32 + positions.size() * 24);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(1);
            out.writeUTF(origin.id());
            out.writeUTF(target.id());
            out.writeLong(replayRequest);
            out.writeInt(positions.size());
            for (Map.Entry<String, Long> unit : positions.entrySet()) {
                out.writeUTF(unit.getKey());
                out.writeLong(unit.getValue());
            }
            out.writeInt(stopped.size());
            for (StoppedStream s : stopped) {
                out.writeUTF(s.unit());
                out.writeLong(s.position());
                out.writeLong(s.refused());
                out.writeUTF(s.reason().length() > 2000 ? s.reason().substring(0, 2000) : s.reason());
                out.writeLong(s.since().toEpochMilli());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static Acknowledgement decode(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            byte version = in.readByte();
            if (version != 1) {
                throw new IllegalArgumentException("acknowledgement: version " + version + " (expected: 1)");
            }
            Region origin = Region.of(in.readUTF());
            Region target = Region.of(in.readUTF());
            long replay = in.readLong();
            int units = in.readInt();
            Map<String, Long> positions = new LinkedHashMap<>();
            for (int i = 0; i < units; i++) {
                positions.put(in.readUTF(), in.readLong());
            }
            int count = in.readInt();
            List<StoppedStream> stopped = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String unit = in.readUTF();
                long position = in.readLong();
                long refused = in.readLong();
                String reason = in.readUTF();
                Instant since = Instant.ofEpochMilli(in.readLong());
                stopped.add(new StoppedStream(origin, target, unit, position, refused, reason, since));
            }
            return new Acknowledgement(origin, target, Map.copyOf(positions), List.copyOf(stopped), replay);
        } catch (IOException e) {
            throw new IllegalArgumentException("acknowledgement: truncated after " + value.length + " bytes", e);
        }
    }
}
