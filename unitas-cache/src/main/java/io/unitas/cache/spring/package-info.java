/**
 * Spring's cache abstraction over two-level caches: {@link io.unitas.cache.spring.TwoLevelCacheManager} makes
 * {@code @Cacheable}, {@code @CachePut} and {@code @CacheEvict} use them. Needs {@code spring-context} on the
 * classpath (an optional dependency of this module); the Spring Boot starter is where an application's caches are
 * declared and this manager is registered.
 */
package io.unitas.cache.spring;
