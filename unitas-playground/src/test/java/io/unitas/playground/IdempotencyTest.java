package io.unitas.playground;

import static io.unitas.playground.EmbeddedRegions.CN;
import static io.unitas.playground.EmbeddedRegions.EU;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.data.DataProblem;
import io.unitas.data.HomeResolver;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyResult;
import io.unitas.data.store.StoredResponse;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.StoreDirectory;
import io.unitas.playground.store.StoreMode;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class IdempotencyTest {

    static final String PAYLOAD = Idempotency.payloadHash("{\"item\":\"book\",\"quantity\":1}");

    @RegisterExtension
    final EmbeddedRegions regions = new EmbeddedRegions();
    final FakeClock clock = regions.clock;
    final RegionalStore cn = regions.cn;
    final RegionalStore eu = regions.eu;
    final StoreDirectory stores = regions.stores;
    final Idempotency inEu = Idempotency.builder().region(EU).homes(HomeResolver.always(CN)).stores(regions.idempotencyStores()).clock(clock)
                                        .ttl(Duration.ofHours(1)).build();
    final AtomicInteger runs = new AtomicInteger();

    StoredResponse placeOrder() {
        return new StoredResponse(201, "order o-" + runs.incrementAndGet());
    }

    @Test
    void firstRequest_runsTheAction_andRecordsItWithTheHomeUnitNotTheServingRegion() {
        IdempotencyResult result = inEu.execute("k1", "alice", PAYLOAD, this::placeOrder);
        assertThat(result.outcome()).isEqualTo(IdempotencyResult.Outcome.EXECUTED);
        assertThat(result.response()).isEqualTo(new StoredResponse(201, "order o-1"));
        assertThat(cn.idempotencyRecord("k1").value().response()).isEqualTo(result.response());
        assertThat(eu.idempotencyRecord("k1").isOk()).isFalse();
    }

    @Test
    void retry_replaysTheStoredResponse_withoutRunningTheActionAgain() {
        inEu.execute("k1", "alice", PAYLOAD, this::placeOrder);
        IdempotencyResult retry = inEu.execute("k1", "alice", PAYLOAD, this::placeOrder);
        assertThat(retry.outcome()).isEqualTo(IdempotencyResult.Outcome.REPLAYED);
        assertThat(retry.response()).isEqualTo(new StoredResponse(201, "order o-1"));
        assertThat(runs).hasValue(1);
    }

    @Test
    void sameKeyWithADifferentPayload_is422Reused() {
        inEu.execute("k1", "alice", PAYLOAD, this::placeOrder);
        IdempotencyResult reuse = inEu.execute("k1", "alice", Idempotency.payloadHash("{}"), this::placeOrder);
        assertThat(reuse.problem().type()).isEqualTo(DataProblem.Type.IDEMPOTENCY_KEY_REUSED);
        assertThat(reuse.problem().type().status()).isEqualTo(422);
        assertThat(reuse.problem().retryable()).isFalse();
        assertThat(runs).hasValue(1);
    }

    @Test
    void sameKeyFromAnotherUser_is422Reused() {
        inEu.execute("k1", "alice", PAYLOAD, this::placeOrder);
        assertThat(inEu.execute("k1", "mallory", PAYLOAD, this::placeOrder).problem().type().status())
                .isEqualTo(422);
    }

    @Test
    void duplicateWhileTheFirstIsStillRunning_is409InFlight() {
        AtomicReference<IdempotencyResult> duplicate = new AtomicReference<>();
        Idempotency inCn = Idempotency.builder().region(CN).homes(HomeResolver.always(CN)).stores(regions.idempotencyStores()).clock(clock).build();
        inEu.execute("k1", "alice", PAYLOAD, () -> {
            duplicate.set(inCn.execute("k1", "alice", PAYLOAD, this::placeOrder));
            return placeOrder();
        });
        assertThat(duplicate.get().problem().type()).isEqualTo(DataProblem.Type.IDEMPOTENCY_KEY_IN_FLIGHT);
        assertThat(duplicate.get().problem().type().status()).isEqualTo(409);
        assertThat(duplicate.get().problem().retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(runs).hasValue(1);
    }

    @Test
    void actionThatFails_releasesTheKeyForTheRetry() {
        assertThatThrownBy(() -> inEu.execute("k1", "alice", PAYLOAD, () -> {
            throw new IllegalStateException("payment service down");
        })).hasMessage("payment service down");
        assertThat(inEu.execute("k1", "alice", PAYLOAD, this::placeOrder).outcome())
                .isEqualTo(IdempotencyResult.Outcome.EXECUTED);
    }

    @Test
    void actionWithoutAResponse_isRejectedAndReleasesTheKey() {
        assertThatThrownBy(() -> inEu.execute("k1", "alice", PAYLOAD, () -> null))
                .hasMessage("response of the action for key 'k1'");
        assertThat(cn.idempotencyRecord("k1").isOk()).isFalse();
    }

    @Test
    void keyAfterItsTtl_runsAgain() {
        inEu.execute("k1", "alice", PAYLOAD, this::placeOrder);
        clock.advance(Duration.ofMinutes(59));
        assertThat(inEu.execute("k1", "alice", PAYLOAD, this::placeOrder).outcome())
                .isEqualTo(IdempotencyResult.Outcome.REPLAYED);
        clock.advance(Duration.ofMinutes(1));
        assertThat(inEu.execute("k1", "alice", PAYLOAD, this::placeOrder).outcome())
                .isEqualTo(IdempotencyResult.Outcome.EXECUTED);
        assertThat(runs).hasValue(2);
    }

    @Test
    void newKeyWhileTheHomeIsReadOnly_is503NotReady_andNothingRuns() {
        cn.mode(StoreMode.READ_ONLY);
        IdempotencyResult result = inEu.execute("k1", "alice", PAYLOAD, this::placeOrder);
        assertThat(result.problem().type()).isEqualTo(DataProblem.Type.DATA_NOT_READY);
        assertThat(result.problem().type().status()).isEqualTo(503);
        assertThat(result.problem().detail())
                .isEqualTo("idempotency key 'k1' cannot be recorded in home region cn (cn: store is read-only)");
        assertThat(runs).hasValue(0);
    }

    @Test
    void payloadHash_isHexSha256() {
        assertThat(Idempotency.payloadHash("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
