package io.unitas.cache.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.cache.Invalidation;
import io.unitas.cache.TwoLevelCache;
import io.unitas.cache.ValueCodec;

/** {@code @Cacheable} and {@code @CacheEvict} of a Spring context on a two-level cache on real RocksDB files. */
class TwoLevelCacheManagerTest {

    /** An entity with its data version. */
    record User(String id, String name, long version) {
    }

    static final ValueCodec<User> USERS = new ValueCodec<>() {
        @Override
        public byte[] encode(User u) {
            return (u.id() + "\n" + u.name() + "\n" + u.version()).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public User decode(byte[] bytes) {
            String[] f = new String(bytes, StandardCharsets.UTF_8).split("\n");
            return new User(f[0], f[1], Long.parseLong(f[2]));
        }
    };

    /** The repository behind the cache: counts its reads, its rows' versions move on each change. */
    static class UserService {
        final AtomicInteger reads = new AtomicInteger();
        volatile long version = 1;

        @Cacheable("users")
        public User find(String id) {
            reads.incrementAndGet();
            return new User(id, "ada v" + version, version);
        }

        @CacheEvict("users")
        public void rename(String id) {
            version++;
        }

        // the context hands out a subclass proxy: the test reaches the fields through methods
        public int reads() {
            return reads.get();
        }

        public void changedElsewhere(long newVersion) {
            version = newVersion;
        }
    }

    @Configuration
    @EnableCaching
    static class App {
        static Path dir;

        @Bean(destroyMethod = "close")
        TwoLevelCache<User> users() {
            return TwoLevelCache.builder("users", USERS).directory(dir).meterRegistry(new SimpleMeterRegistry())
                    .build();
        }

        @Bean
        CacheManager cacheManager(TwoLevelCache<User> users) {
            return TwoLevelCacheManager.builder().cache(users, User.class, User::version).build();
        }

        @Bean
        UserService userService() {
            return new UserService();
        }
    }

    @TempDir
    Path dir;

    @Test
    void cacheable_readsOnce_anInvalidationFromElsewhereDropsIt_cacheEvictToo() {
        App.dir = dir;
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(App.class)) {
            UserService service = context.getBean(UserService.class);
            @SuppressWarnings("unchecked")
            TwoLevelCache<User> users = context.getBean(TwoLevelCache.class);

            assertThat(service.find("u-1").name()).isEqualTo("ada v1");
            assertThat(service.find("u-1").name()).isEqualTo("ada v1");
            assertThat(service.reads()).isEqualTo(1);

            // another region changed u-1 to version 2: its invalidation drops what @Cacheable cached at version 1
            service.changedElsewhere(2);
            users.invalidate(new Invalidation("u-1", 2, Instant.EPOCH));
            assertThat(service.find("u-1").name()).isEqualTo("ada v2");
            assertThat(service.reads()).isEqualTo(2);

            service.rename("u-1");
            assertThat(service.find("u-1").name()).isEqualTo("ada v3");
            assertThat(service.reads()).isEqualTo(3);
        }
    }

    @Test
    void aValueOfAnotherType_isRefused_namingTheCache() {
        try (TwoLevelCache<User> users = TwoLevelCache.builder("users", USERS).directory(dir).build()) {
            CacheManager manager = TwoLevelCacheManager.builder().cache(users, User.class, User::version).build();

            assertThatThrownBy(() -> manager.getCache("users").put("u-1", "not a user"))
                    .hasMessage("cache 'users': key u-1: a java.lang.String (expected: "
                            + User.class.getName() + ")");
            assertThat(manager.getCache("orders")).isNull();
        }
    }

    @Test
    void anEmptyManager_isRefused() {
        assertThatThrownBy(() -> TwoLevelCacheManager.builder().build())
                .hasMessage("TwoLevelCacheManager: no caches (expected: at least one, added with cache(...))");
    }
}
