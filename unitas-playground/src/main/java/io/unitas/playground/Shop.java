package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitRules;
import io.unitas.data.remote.HomeReadClient;
import com.linecorp.armeria.server.HttpService;
import io.unitas.playground.store.StoreDirectory;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * One instance of the demo shop: register, log in, cart, checkout with an {@code Idempotency-Key}, orders, all
 * over HTTP/JSON on one port. It serves in one region, writes to that region's store and reaches the other
 * regions through a {@link HomeReadClient} (or, in tests, their stores through a {@link StoreDirectory}). The user is named by the {@code x-user-id} header.
 */
public interface Shop extends AutoCloseable {

    /** A builder; region, stores and rules are required. */
    static Builder builder() {
        return new Builder();
    }

    /** The port it listens on. */
    int port();

    /** Stops serving. */
    @Override
    void close();

    /** Collects the settings of a {@link Shop}. */
    final class Builder {
        Region region;
        StoreDirectory stores;
        UnitRules rules;
        Function<Unit, Optional<Region>> homes = unit -> Optional.empty();
        ShopMode mode = ShopMode.UNITAS;
        String instance = "";
        int port;
        Clock clock = Clock.systemUTC();
        HomeReadClient homeReads;
        final Map<String, HttpService> mounts = new LinkedHashMap<>();

        private Builder() {}

        /**
         * Serves {@code service} under {@code pathPrefix} beside the shop's own routes, as an ingress's path route
         * would (the playground routes the example services' prefix this way).
         */
        public Builder mount(String pathPrefix, HttpService service) {
            mounts.put(Objects.requireNonNull(pathPrefix, "pathPrefix"), Objects.requireNonNull(service, "service"));
            return this;
        }

        /**
         * Reads entities not yet in this region from their home region over the network (each region serving its
         * store with {@link io.unitas.playground.store.ShopData#serve}). Without it, the homes' stores are read in
         * this process through {@link #stores}, as tests do.
         */
        public Builder homeReads(HomeReadClient client) {
            this.homeReads = Objects.requireNonNull(client, "client");
            return this;
        }

        /** The region this instance serves in; its store must be in {@link #stores}. */
        public Builder region(Region region) {
            this.region = Objects.requireNonNull(region, "region");
            return this;
        }

        /** Every region's store. */
        public Builder stores(StoreDirectory stores) {
            this.stores = Objects.requireNonNull(stores, "stores");
            return this;
        }

        /** The unit rules that give each user id its unit and home region (key source {@code x-user-id}). */
        public Builder rules(UnitRules rules) {
            this.rules = Objects.requireNonNull(rules, "rules");
            return this;
        }

        /**
         * Where each unit lives now, when it names a region (the control plane's live map, which a switchover or a
         * promotion changes); else the home in {@link #rules}. Unitas shops only.
         */
        public Builder homes(Function<Unit, Optional<Region>> homes) {
            this.homes = Objects.requireNonNull(homes, "homes");
            return this;
        }

        /** {@link ShopMode#UNITAS} (the default) or {@link ShopMode#NAIVE}. */
        public Builder mode(ShopMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** A name for this instance, returned in {@code x-shop-instance}. */
        public Builder instance(String instance) {
            this.instance = Objects.requireNonNull(instance, "instance");
            return this;
        }

        /** The port on 127.0.0.1; 0 picks a free one. */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
            }
            this.port = port;
            return this;
        }

        /** The clock that stamps registrations, sessions and orders. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Starts serving. */
        public Shop start() {
            Objects.requireNonNull(region, "region");
            Objects.requireNonNull(stores, "stores");
            Objects.requireNonNull(rules, "rules");
            if (stores.store(region).isEmpty()) {
                throw new IllegalArgumentException("stores: no store for region " + region + " (expected: one)");
            }
            return ShopServer.start(this);
        }
    }
}
