package io.unitas.cache.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.cache.Invalidation;
import io.unitas.cache.InvalidationPublisher;
import io.unitas.cache.TwoLevelCache;
import io.unitas.cache.ValueCodec;
import io.unitas.cache.Versioned;
import io.unitas.testkit.Await;
import io.unitas.testkit.KafkaCluster;

/** The example of docs/cache.md, compiled and run against a real broker, and checked to be the one the doc shows. */
class CacheExampleTest {

    /** A table of users with a version per row, standing for the data layer. */
    private final Map<String, Versioned<String>> table = new ConcurrentHashMap<>(
            Map.of("u-42", new Versioned<>("Ada", 1)));

    @TempDir
    Path dir;

    @Test
    void theDocShowsThisExample() throws Exception {
        String source = Files.readString(Path.of("src/test/java/io/unitas/cache/kafka/CacheExampleTest.java"));
        String begin = "// --- docs/cache.md: begin\n";
        int start = source.indexOf(begin) + begin.length();
        String example = source.substring(start, source.indexOf("        // --- docs/cache.md: end", start));
        String doc = Files.readString(Path.of("../docs/cache.md"));
        String block = doc.substring(doc.indexOf("```java\n") + 8, doc.indexOf("\n```", doc.indexOf("```java\n")));

        // the doc's block is a whole class (it compiles in the build) around this example, at its own indentation
        assertThat(unindented(block)).contains(unindented(example));
    }

    @Test
    void theDocsExample() throws Exception {
        String kafka = KafkaCluster.shared().bootstrapServers();
        // --- docs/cache.md: begin
        TwoLevelCache<String> users = TwoLevelCache.builder("users", ValueCodec.utf8())
                .directory(dir.resolve("users"))            // RocksDB files, kept across restarts
                .maximumSize(100_000)                       // L1: entries in memory
                .ttl(Duration.ofMinutes(10))                // deleted past this age, both levels
                .freshnessBound(Duration.ofSeconds(30))     // never served past this age (readiness bound)
                .build();
        KafkaInvalidations.ensureTopics(kafka, "users", 4);
        InvalidationConsumer consumer = KafkaInvalidations.consumer(kafka, users)
                .groupId("users-cache-host-1")              // this process's own group, stable across restarts
                .build()
                .start();
        InvalidationPublisher publisher = KafkaInvalidations.publisher(kafka, "users");

        String name = users.get("u-42", key -> table.get(key));   // read-through: loaded once, then cached

        // the data layer changes u-42 to version 2, commits, then tells every cache
        table.put("u-42", new Versioned<>("Ada L.", 2));
        publisher.publish(new Invalidation("u-42", 2, Instant.now())).toCompletableFuture().join();
        // --- docs/cache.md: end

        assertThat(name).isEqualTo("Ada");
        Await.until("u-42 invalidated", Duration.ofSeconds(60), () -> users.getIfPresent("u-42") == null);
        assertThat(users.get("u-42", key -> table.get(key))).isEqualTo("Ada L.");
        publisher.close();
        consumer.close();
        users.close();
    }

    private static String unindented(String text) {
        return text.lines().map(String::strip).collect(Collectors.joining("\n"));
    }
}
