package io.unitas.playground;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.ResponseHeadersBuilder;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import io.unitas.core.Region;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.UnitLookup;
import io.unitas.core.rules.UnitRules;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.core.ProblemType;
import io.unitas.data.DataProblem;
import io.unitas.data.HomeResolver;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyResult;
import io.unitas.data.ReadinessResult;
import io.unitas.playground.store.Account;
import io.unitas.playground.store.Cart;
import io.unitas.playground.store.Order;
import io.unitas.playground.store.OtherRegions;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.Session;
import io.unitas.playground.store.SessionRef;
import io.unitas.playground.store.ShopData;
import io.unitas.playground.store.StoreDirectory;
import io.unitas.playground.store.StoreMode;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoredResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** The demo shop over Armeria: each request aggregated, then handled on the blocking executor (JDBC). */
final class ShopServer implements Shop {

    static final String USER_HEADER = "x-user-id";
    static final String REGION_HEADER = "x-shop-region";
    static final String INSTANCE_HEADER = "x-shop-instance";
    private static final KeySource USER_KEY = KeySource.header(USER_HEADER);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SESSION_TTL = Duration.ofHours(1);

    private final Region region;
    private final String instance;
    private final ShopMode mode;
    private final RegionalStore local;
    private final UnitRules rules;
    private final ShopData data;
    /** Where data written outside its home may be: the other regions, over the network (in tests, in process). */
    private final OtherRegions others;
    private final Clock clock;
    private Server server;
    /** Set as the shop starts to stop: a dead region answers nothing, also on a connection a client kept open. */
    private volatile boolean stopping;

    private ShopServer(Shop.Builder b) {
        this.region = b.region;
        this.instance = b.instance;
        this.mode = b.mode;
        this.local = b.stores.store(b.region).orElseThrow();
        this.rules = b.rules;
        this.clock = b.clock;
        List<Region> regions = b.rules.topology().regions();
        // Naive: the directory holds only the local store and every user's "home" is here.
        HomeResolver homes = HomeResolver.rules(() -> rules, USER_KEY, b.homes);
        this.data = mode == ShopMode.NAIVE
                    ? ShopData.of(region, StoreDirectory.of(local), HomeResolver.always(region), clock)
                    : b.homeReads != null ? ShopData.of(region, b.stores, homes, b.homeReads, clock)
                    : ShopData.of(region, b.stores, homes, clock);
        this.others = mode == ShopMode.NAIVE ? OtherRegions.none()
                      : b.homeReads != null ? OtherRegions.network(region, regions, homes, b.homeReads)
                      : OtherRegions.inProcess(region, regions, homes, b.stores);
    }

    static Shop start(Shop.Builder b) {
        ShopServer shop = new ShopServer(b);
        ServerBuilder server = Server.builder();
        b.mounts.forEach(server::serviceUnder);
        shop.server = server
                            .http(new InetSocketAddress("127.0.0.1", b.port))
                            .gracefulShutdownTimeout(Duration.ZERO, Duration.ZERO)
                            .connectionDrainDuration(Duration.ZERO)
                            .route().post("/register").build(shop.blocking(shop::register))
                            .route().post("/login").build(shop.blocking(shop::login))
                            .route().get("/cart").build(shop.blocking(shop::cart))
                            .route().post("/cart/items").build(shop.blocking(shop::addToCart))
                            .route().post("/checkout").build(shop.blocking(shop::checkout))
                            .route().get("/orders").build(shop.blocking(shop::orders))
                            .route().get("/unitas/store").build(shop.blocking(shop::storeStatus))
                            .route().get("/livez").build((ctx, req) -> shop.text(HttpStatus.OK, "ok"))
                            // the server stops taking connections before it closes the open ones: a request on one
                            // of those in between must not be served
                            .decorator((delegate, ctx, req) -> {
                                if (shop.stopping) {
                                    ctx.initiateConnectionShutdown();
                                    return HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE);
                                }
                                return delegate.serve(ctx, req);
                            })
                            .build();
        shop.server.start().join();
        return shop;
    }

    @Override
    public int port() {
        return server.activeLocalPort();
    }

    @Override
    public void close() {
        stopping = true;
        server.stop().join();
    }

    /** A handler that reads the whole request and runs on the blocking executor, since stores block. */
    private HttpService blocking(Handler handler) {
        return (ctx, req) -> HttpResponse.of(req.aggregate().thenApplyAsync(agg -> {
            try {
                return handler.handle(agg);
            } catch (ShopUnavailable e) {
                return problem(503, "store-unavailable", e.getMessage(), Duration.ofSeconds(1));
            } catch (BadRequest e) {
                return problem(400, "bad-request", e.getMessage(), Duration.ZERO);
            } catch (Unauthorized e) {
                return problem(401, "session-not-found", e.getMessage(), Duration.ZERO);
            } catch (NotReady e) {
                return problem(e.problem);
            }
        }, ctx.blockingTaskExecutor()));
    }

    @FunctionalInterface
    private interface Handler {
        HttpResponse handle(AggregatedHttpRequest req);
    }

    // ---- endpoints

    private HttpResponse register(AggregatedHttpRequest req) {
        String user = user(req);
        UnitLookup unit = unitOf(user);
        JsonNode body = body(req);
        Account account = new Account(user, unit.unit().id(), unit.unit().home(), body.path("name").asText(user),
                                      clock.instant());
        StoreResult<Account> put = local.putAccount(account);
        if (!put.isOk()) {
            throw new ShopUnavailable(put.detail());
        }
        ObjectNode out = JSON.createObjectNode().put("user", user).put("unit", account.unit())
                             .put("home", account.home().id());
        return json(201, out);
    }

    private HttpResponse login(AggregatedHttpRequest req) {
        String user = user(req);
        ReadinessResult<Account> account = data.accounts().read(user);
        switch (account.outcome()) {
            case NOT_FOUND -> {
                // A miss at home may be an account written in another region during a failover that replication
                // has not brought home yet; while a region cannot be asked, "not found" could be a lie.
                OtherRegions.Lookup<Account> elsewhere = others.account(user);
                if (!elsewhere.found()) {
                    StoreResult<Account> here = local.account(user);
                    boolean hereUnreadable = !here.isOk() && here.status() != StoreResult.Status.NOT_FOUND;
                    if (mode == ShopMode.UNITAS && (hereUnreadable || !elsewhere.unanswered().isEmpty())) {
                        return problem(ProblemType.DATA_NOT_READY.problem(region + ": no account '" + user
                                + "' in the regions that answer; one that does not may hold it",
                                Duration.ofSeconds(1)));
                    }
                    return problem(404, "account-not-found", region + ": no account '" + user + "'",
                                   Duration.ZERO);
                }
            }
            case NOT_READY, NO_UNIT -> {
                return problem(account.problem());
            }
            default -> { }
        }
        Session session = new Session(UUID.randomUUID().toString(), user, clock.instant().plus(SESSION_TTL));
        StoreResult<Session> put = local.putSession(session);
        if (!put.isOk()) {
            throw new ShopUnavailable(put.detail());
        }
        return json(200, JSON.createObjectNode().put("token", session.token()).put("user", user)
                             .put("read_from", account.outcome().name().toLowerCase()));
    }

    private HttpResponse cart(AggregatedHttpRequest req) {
        String user = authenticated(req);
        ReadinessResult<Cart> cart = data.carts().read(user);
        if (!cart.hasValue()) {
            return cart.problem() != null ? problem(cart.problem()) : json(200, cartJson(Cart.empty()));
        }
        return json(200, cartJson(cart.value()));
    }

    private HttpResponse addToCart(AggregatedHttpRequest req) {
        String user = authenticated(req);
        JsonNode body = body(req);
        String item = body.path("item").asText("");
        int quantity = body.path("quantity").asInt(1);
        if (item.isEmpty() || quantity < 1) {
            throw new BadRequest("item: '" + item + "', quantity: " + quantity
                                 + " (expected: a non-empty item and a quantity >= 1)");
        }
        StoreResult<Cart> cart = local.updateCart(user, (c, replica) -> c.add(replica, item, quantity));
        if (!cart.isOk()) {
            throw new ShopUnavailable(cart.detail());
        }
        return json(200, cartJson(cart.value()));
    }

    private HttpResponse checkout(AggregatedHttpRequest req) {
        String user = authenticated(req);
        String key = req.headers().get("idempotency-key", "");
        if (key.isEmpty()) {
            return problem(400, "idempotency-key-missing", "checkout needs an Idempotency-Key header",
                           Duration.ZERO);
        }
        String payload = req.contentUtf8();
        Optional<StoredResponse> earlier = completedOutsideHome(key, user, Idempotency.payloadHash(payload));
        if (earlier.isPresent()) {
            return stored(earlier.get(), true);
        }
        IdempotencyResult result = data.checkouts().execute(key, user, Idempotency.payloadHash(payload),
                                                            () -> placeOrder(user, key, payload));
        return switch (result.outcome()) {
            case EXECUTED -> stored(result.response(), false);
            case REPLAYED -> stored(result.response(), true);
            case REJECTED -> problem(result.problem());
        };
    }

    private StoredResponse placeOrder(String user, String key, String payload) {
        Order order = new Order("o-" + UUID.randomUUID(), user, key, payload, clock.instant());
        StoreResult<Order> put = local.putOrder(order);
        if (!put.isOk()) {
            throw new ShopUnavailable(put.detail());
        }
        return new StoredResponse(201, JSON.createObjectNode().put("order", order.orderId())
                                           .put("region", region.id()).toString());
    }

    private HttpResponse orders(AggregatedHttpRequest req) {
        String user = authenticated(req);
        StoreResult<List<Order>> orders = local.orders(user);
        if (!orders.isOk()) {
            throw new ShopUnavailable(orders.detail());
        }
        ObjectNode out = JSON.createObjectNode();
        var list = out.putArray("orders");
        orders.value().forEach(o -> list.addObject().put("order", o.orderId()).put("idempotency_key",
                                                                                  o.idempotencyKey()));
        return json(200, out);
    }

    private HttpResponse storeStatus(AggregatedHttpRequest req) {
        StoreMode m = local.mode();
        String text = region + ": store " + m.name().toLowerCase().replace('_', '-');
        return text(m == StoreMode.READ_WRITE ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE, text);
    }

    // ---- users, sessions, homes

    private String user(AggregatedHttpRequest req) {
        String user = req.headers().get(USER_HEADER, "");
        if (user.isEmpty()) {
            throw new BadRequest(USER_HEADER + " header missing (expected: the user id)");
        }
        return user;
    }

    private UnitLookup unitOf(String user) {
        UnitLookup lookup = rules.lookupKey(USER_KEY, user);
        if (lookup.unit() == null) {
            throw new BadRequest(USER_HEADER + ": '" + user + "' has no unit (" + lookup.outcome().reason() + ")");
        }
        return lookup;
    }

    /**
     * A completed checkout of this key found outside the user's home, here or in another region (asked over the
     * network): after a promotion its old home may hold the record (and the order) that never shipped to the new
     * one. Replaying it keeps a retry from ordering twice while the old home can still be read. The home's own
     * record is the data layer's to answer ({@code checkouts().execute}).
     */
    private Optional<StoredResponse> completedOutsideHome(String key, String user, String fingerprint) {
        if (mode == ShopMode.NAIVE) {
            return Optional.empty();
        }
        StoreResult<IdempotencyRecord> here = local.idempotencyRecord(key);
        if (here.isOk() && !here.value().inFlight() && here.value().userId().equals(user)
            && here.value().payloadHash().equals(fingerprint)) {
            return Optional.of(here.value().response());
        }
        return others.completedCheckout(key, user, fingerprint);
    }

    /** The user of a valid session for {@code x-user-id}, or a 401/503 thrown as a response. */
    private String authenticated(AggregatedHttpRequest req) {
        String user = user(req);
        String auth = req.headers().get(HttpHeaderNames.AUTHORIZATION, "");
        String token = auth.startsWith("Bearer ") ? auth.substring(7) : "";
        ReadinessResult<Session> session = data.sessions().read(new SessionRef(user, token));
        switch (session.outcome()) {
            case LOCAL, HOME -> {
                if (!session.value().userId().equals(user)) {
                    throw new Unauthorized("session belongs to another user");
                }
                return user;
            }
            case REBUILD -> {
                StoreResult<Session> put = local.putSession(new Session(token, user,
                                                                        clock.instant().plus(SESSION_TTL)));
                if (!put.isOk()) {
                    throw new ShopUnavailable(put.detail());
                }
                return user;
            }
            case NOT_READY, NO_UNIT -> throw new NotReady(session.problem());
            default -> {
                // A session made in another region during a failover, not yet replicated here or home.
                if (!others.session(user, token).found()) {
                    throw new Unauthorized(region + ": no session '" + token + "'");
                }
                return user;
            }
        }
    }

    // ---- responses

    private HttpResponse stored(StoredResponse response, boolean replayed) {
        ResponseHeadersBuilder h = headers(response.status(), MediaType.JSON_UTF_8);
        if (replayed) {
            h.add("idempotent-replayed", "true");
        }
        return HttpResponse.of(h.build(), HttpData.ofUtf8(response.body()));
    }

    private HttpResponse json(int status, ObjectNode body) {
        body.put("served_by", region.id());
        return HttpResponse.of(headers(status, MediaType.JSON_UTF_8).build(),
                               HttpData.ofUtf8(body.toString()));
    }

    private HttpResponse text(HttpStatus status, String text) {
        return HttpResponse.of(headers(status.code(), MediaType.PLAIN_TEXT_UTF_8).build(),
                               HttpData.ofUtf8(text + "\n"));
    }

    private HttpResponse problem(DataProblem p) {
        return problem(p.toProblemDetail());
    }

    private HttpResponse problem(int status, String type, String detail, Duration retryAfter) {
        return problem(ProblemDetail.of(status, type, detail).withRetryAfter(retryAfter));
    }

    /** The problem as {@code application/problem+json}, naming the serving region, with Retry-After when set. */
    private HttpResponse problem(ProblemDetail problem) {
        ResponseHeadersBuilder h = headers(problem.status(), MediaType.parse(ProblemJson.MEDIA_TYPE));
        if (problem.retryAfterSeconds() > 0) {
            h.add(HttpHeaderNames.RETRY_AFTER, Long.toString(problem.retryAfterSeconds()));
        }
        return HttpResponse.of(h.build(), HttpData.wrap(ProblemJson.encode(problem.with("served_by", region.id()))));
    }

    private ResponseHeadersBuilder headers(int status, MediaType type) {
        return ResponseHeaders.builder(status).contentType(type).add(REGION_HEADER, region.id())
                              .add(INSTANCE_HEADER, instance);
    }

    private static ObjectNode cartJson(Cart cart) {
        ObjectNode out = JSON.createObjectNode();
        ObjectNode items = out.putObject("items");
        for (Map.Entry<String, Integer> e : cart.items().entrySet()) {
            items.put(e.getKey(), e.getValue());
        }
        return out;
    }

    private static JsonNode body(AggregatedHttpRequest req) {
        String text = req.contentUtf8();
        if (text.isBlank()) {
            return JSON.createObjectNode();
        }
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new BadRequest("body: not JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
        }
    }

    // ---- expected conditions, turned into responses by blocking()

    private static class Answer extends RuntimeException {
        Answer(String message) {
            super(message, null, false, false);
        }
    }

    private static final class ShopUnavailable extends Answer {
        ShopUnavailable(String message) {
            super(message);
        }
    }

    private static final class BadRequest extends Answer {
        BadRequest(String message) {
            super(message);
        }
    }

    private static final class Unauthorized extends Answer {
        Unauthorized(String message) {
            super(message);
        }
    }

    private static final class NotReady extends Answer {
        final DataProblem problem;

        NotReady(DataProblem problem) {
            super(problem.detail());
            this.problem = problem;
        }
    }
}
