package io.unitas.cache.spring;

import java.util.concurrent.Callable;
import java.util.function.ToLongFunction;

import org.springframework.cache.Cache;
import org.springframework.cache.support.SimpleValueWrapper;

import io.unitas.cache.TwoLevelCache;

/** One {@link TwoLevelCache} seen through Spring's {@link Cache}. */
final class SpringTwoLevelCache<V> implements Cache {

    private final TwoLevelCache<V> cache;
    private final Class<V> type;
    private final ToLongFunction<? super V> versionOf;

    SpringTwoLevelCache(TwoLevelCache<V> cache, Class<V> type, ToLongFunction<? super V> versionOf) {
        this.cache = cache;
        this.type = type;
        this.versionOf = versionOf;
    }

    @Override
    public String getName() {
        return cache.name();
    }

    @Override
    public Object getNativeCache() {
        return cache;
    }

    @Override
    public ValueWrapper get(Object key) {
        V value = cache.getIfPresent(String.valueOf(key));
        return value == null ? null : new SimpleValueWrapper(value);
    }

    @Override
    public <T> T get(Object key, Class<T> wanted) {
        V value = cache.getIfPresent(String.valueOf(key));
        if (value != null && wanted != null && !wanted.isInstance(value)) {
            throw new IllegalStateException("cache '" + cache.name() + "': key " + key + " holds a "
                    + value.getClass().getName() + " (expected: " + wanted.getName() + ")");
        }
        @SuppressWarnings("unchecked")
        T t = (T) value;
        return t;
    }

    @Override
    public <T> T get(Object key, Callable<T> valueLoader) {
        String k = String.valueOf(key);
        V held = cache.getIfPresent(k);
        if (held != null) {
            @SuppressWarnings("unchecked")
            T t = (T) held;
            return t;
        }
        T loaded;
        try {
            loaded = valueLoader.call();
        } catch (Exception e) {
            throw new ValueRetrievalException(key, valueLoader, e);
        }
        put(key, loaded);
        return loaded;
    }

    @Override
    public void put(Object key, Object value) {
        if (value == null) {
            cache.evict(String.valueOf(key)); // null results are not cached; an older value must not stay
            return;
        }
        V v = checked(key, value);
        cache.put(String.valueOf(key), v, versionOf.applyAsLong(v));
    }

    @Override
    public void evict(Object key) {
        cache.evict(String.valueOf(key));
    }

    @Override
    public void clear() {
        cache.clear();
    }

    private V checked(Object key, Object value) {
        if (!type.isInstance(value)) {
            throw new IllegalArgumentException("cache '" + cache.name() + "': key " + key + ": a "
                    + value.getClass().getName() + " (expected: " + type.getName() + ")");
        }
        return type.cast(value);
    }
}
