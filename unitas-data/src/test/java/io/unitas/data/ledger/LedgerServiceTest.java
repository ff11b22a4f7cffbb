package io.unitas.data.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.UnitRules;
import io.unitas.data.DataProblem;
import io.unitas.data.DataReadiness;
import io.unitas.data.HomeResolver;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyResult;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.ReadinessResult;
import io.unitas.data.ledger.LedgerRegion.Balance;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import io.unitas.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * A service that is not the shop — a ledger of balances with its own table — adopting the data layer: readiness
 * for balances and idempotency for deposits, with homes by the unit rules. Account 1001 is in unit u-cn, at home
 * in cn; cn's database stops answering and its users are served in eu, on a controlled clock.
 */
class LedgerServiceTest {

    static final Region CN = Region.of("cn");
    static final Region EU = Region.of("eu");

    final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    final LedgerRegion cn = new LedgerRegion(CN, clock);
    final LedgerRegion eu = new LedgerRegion(EU, clock);
    final Map<Region, LedgerRegion> regions = Map.of(CN, cn, EU, eu);
    final AtomicReference<UnitRules> rules = new AtomicReference<>(
            UnitRules.builder().unit("u-cn", "cn").unit("u-eu", "eu").source(KeySource.header("x-account"))
                     .transform(KeyTransform.mod(10_000)).range(0, 4_999, "u-cn").range(5_000, 9_999, "u-eu")
                     .build(Topology.of("cn", "eu")));
    final HomeResolver homes = HomeResolver.rules(rules::get, KeySource.header("x-account"));
    final AtomicInteger depositsRun = new AtomicInteger();

    /** The ledger service as it runs in one region: its reads, and its deposits at most once per key. */
    final class Ledger {
        final LedgerRegion here;
        final DataReadiness<String, Balance> balances;
        final Idempotency deposits;

        Ledger(LedgerRegion here, DataReadiness.Builder<String, Balance> settings) {
            this.here = here;
            this.balances = settings.region(here.region).homes(homes).describe(a -> "balance of account " + a)
                                    .local(here::balance)
                                    .home((home, account) -> regions.get(home).balance(account))
                                    .clock(clock).build();
            this.deposits = Idempotency.builder().region(here.region).homes(homes)
                                       .stores(r -> Optional.ofNullable(regions.get(r)).map(l -> l.idempotency))
                                       .clock(clock).build();
        }

        Ledger(LedgerRegion here) {
            this(here, DataReadiness.builder());
        }

        IdempotencyResult deposit(String key, String account, long cents) {
            return deposits.execute(key, account, Idempotency.fingerprint("deposit", account, Long.toString(cents)),
                                    () -> {
                                        depositsRun.incrementAndGet();
                                        long before = here.balance(account).isOk()
                                                      ? here.balance(account).value().cents() : 0;
                                        here.put(new Balance(account, before + cents, clock.instant()));
                                        return new StoredResponse(201, "{\"balance\":" + (before + cents) + "}");
                                    });
        }
    }

    /** What a replication stream does for one account: eu's copy becomes cn's, current as of now. */
    void replicateToEu(String account) {
        StoreResult<Balance> atHome = cn.balance(account);
        eu.put(new Balance(account, atHome.value().cents(), clock.instant()));
    }

    @Nested
    @DisplayName("1. a deposit acknowledged in cn is read in eu before replication brings it")
    class ReadBeforeReplication {

        @Test
        void localOnlyRead_saysTheAccountDoesNotExist() {
            new Ledger(cn).deposit("k-1", "1001", 500);
            assertThat(eu.balance("1001").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        }

        @Test
        void readinessInEu_readsTheBalanceFromItsHome_cn() {
            new Ledger(cn).deposit("k-1", "1001", 500);
            ReadinessResult<Balance> result = new Ledger(eu).balances.read("1001");
            assertThat(result.outcome()).isEqualTo(ReadinessResult.Outcome.HOME);
            assertThat(result.value().cents()).isEqualTo(500);
            assertThat(result.detail()).isEqualTo("balance of account 1001 not yet in eu; read from home region cn");
        }

        @Test
        void afterReplication_eusOwnCopyServes() {
            new Ledger(cn).deposit("k-1", "1001", 500);
            replicateToEu("1001");
            assertThat(new Ledger(eu).balances.read("1001").outcome()).isEqualTo(ReadinessResult.Outcome.LOCAL);
        }

        @Test
        void anAccountNobodyOpened_isNotFound_becauseItsHomeSaysSo() {
            ReadinessResult<Balance> result = new Ledger(eu).balances.read("1002");
            assertThat(result.outcome()).isEqualTo(ReadinessResult.Outcome.NOT_FOUND);
            assertThat(result.detail()).isEqualTo("balance of account 1002 does not exist (home region cn says so)");
        }
    }

    @Nested
    @DisplayName("2. while cn's database does not answer, eu says data-not-ready, never not-found")
    class HomeUnreachable {

        @Test
        void readInEu_isARetryable503_untilCnAnswersAgain() {
            new Ledger(cn).deposit("k-1", "1001", 500);
            cn.reachable(false);
            ReadinessResult<Balance> result = new Ledger(eu).balances.read("1001");
            assertThat(result.outcome()).isEqualTo(ReadinessResult.Outcome.NOT_READY);
            assertThat(result.problem().toProblemDetail().status()).isEqualTo(503);
            assertThat(result.problem().retryable()).isTrue();
            assertThat(result.problem().retryAfter()).isEqualTo(Duration.ofSeconds(1));
            assertThat(result.detail()).startsWith("balance of account 1001 not in eu and home region cn cannot be"
                                                   + " read (cn: store is unavailable: cn: connection refused");

            cn.reachable(true);
            assertThat(new Ledger(eu).balances.read("1001").outcome()).isEqualTo(ReadinessResult.Outcome.HOME);
        }

        @Test
        void aHomeThatNeverAnswers_isDataNotReady_withinTheTimeout() {
            DataReadiness<String, Balance> silentHome = DataReadiness.<String, Balance>builder()
                    .region(EU).homes(homes).local(eu::balance)
                    .homeAsync((home, account) -> new CompletableFuture<>())
                    .homeTimeout(Duration.ofMillis(50)).build();
            ReadinessResult<Balance> result = silentHome.read("1001");
            assertThat(result.outcome()).isEqualTo(ReadinessResult.Outcome.NOT_READY);
            assertThat(result.detail()).isEqualTo("entity '1001' not in eu and home region cn cannot be read"
                                                  + " (cn: store is unavailable: no answer within 50 ms)");
        }

        @Test
        void aHomeReadThatFails_isDataNotReady_notAnException() {
            DataReadiness<String, Balance> failing = DataReadiness.<String, Balance>builder()
                    .region(EU).homes(homes).local(eu::balance)
                    .homeAsync((home, account) -> CompletableFuture.failedFuture(new IllegalStateException("reset")))
                    .build();
            assertThat(failing.readAsync("1001").toCompletableFuture().join().outcome())
                    .isEqualTo(ReadinessResult.Outcome.NOT_READY);
        }
    }

    @Nested
    @DisplayName("3. a copy older than the freshness bound yields to the home")
    class Freshness {

        final Ledger inEu = new Ledger(eu, DataReadiness.<String, Balance>builder()
                .freshness((account, balance) -> balance.asOf(), Duration.ofSeconds(5)));

        @Test
        void withinTheBound_theLocalCopyServes_beyondIt_theHomesNewerBalance() {
            new Ledger(cn).deposit("k-1", "1001", 500);
            replicateToEu("1001");
            new Ledger(cn).deposit("k-2", "1001", 300); // not replicated yet

            clock.advance(Duration.ofSeconds(5));
            assertThat(inEu.balances.read("1001").value().cents()).isEqualTo(500);

            clock.advance(Duration.ofMillis(1));
            ReadinessResult<Balance> result = inEu.balances.read("1001");
            assertThat(result.outcome()).isEqualTo(ReadinessResult.Outcome.HOME);
            assertThat(result.value().cents()).isEqualTo(800);
            assertThat(result.detail()).isEqualTo("balance of account 1001 in eu may be stale (current as of 5001 ms"
                                                  + " ago, expected: <= 5000 ms); read from home region cn");
        }

        @Test
        void beyondTheBound_withTheHomeDown_theOldCopyStillServes() {
            new Ledger(cn).deposit("k-1", "1001", 500);
            replicateToEu("1001");
            clock.advance(Duration.ofMinutes(1));
            cn.reachable(false);
            assertThat(inEu.balances.read("1001").outcome()).isEqualTo(ReadinessResult.Outcome.LOCAL);
        }
    }

    @Nested
    @DisplayName("4. a deposit made in cn is retried with the same Idempotency-Key and lands in eu")
    class DepositRetriedInEu {

        @Test
        void theRecordLivesInTheHomeUnitsStore_notWhereTheRequestRan() {
            IdempotencyResult first = new Ledger(eu).deposit("k-1", "1001", 500);
            assertThat(first.outcome()).isEqualTo(IdempotencyResult.Outcome.EXECUTED);
            assertThat(cn.idempotency.idempotencyRecord("k-1").value().response()).isEqualTo(first.response());
            assertThat(eu.idempotency.idempotencyRecord("k-1").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        }

        @Test
        void retryInEu_replaysTheFirstResponse_andDepositsOnce() {
            IdempotencyResult first = new Ledger(cn).deposit("k-1", "1001", 500);
            IdempotencyResult retry = new Ledger(eu).deposit("k-1", "1001", 500);
            assertThat(retry.outcome()).isEqualTo(IdempotencyResult.Outcome.REPLAYED);
            assertThat(retry.response()).isEqualTo(first.response());
            assertThat(depositsRun).hasValue(1);
        }

        @Test
        void sameKeyForADifferentAmount_is422() {
            new Ledger(cn).deposit("k-1", "1001", 500);
            IdempotencyResult reuse = new Ledger(eu).deposit("k-1", "1001", 900);
            assertThat(reuse.problem().type()).isEqualTo(DataProblem.Type.IDEMPOTENCY_KEY_REUSED);
            assertThat(reuse.problem().toProblemDetail().status()).isEqualTo(422);
            assertThat(reuse.problem().retryable()).isFalse();
        }

        @Test
        void retryWhileTheFirstStillRuns_is409() {
            Ledger inCn = new Ledger(cn);
            AtomicReference<IdempotencyResult> duplicate = new AtomicReference<>();
            inCn.deposits.execute("k-1", "1001", "f", () -> {
                duplicate.set(new Ledger(eu).deposits.execute("k-1", "1001", "f", () -> {
                    throw new AssertionError("ran twice");
                }));
                return new StoredResponse(201, "{}");
            });
            assertThat(duplicate.get().problem().type()).isEqualTo(DataProblem.Type.IDEMPOTENCY_KEY_IN_FLIGHT);
            assertThat(duplicate.get().problem().toProblemDetail().status()).isEqualTo(409);
        }

        @Test
        void newKeyWhileCnDoesNotAnswer_is503_andNothingRuns() {
            cn.reachable(false);
            IdempotencyResult result = new Ledger(eu).deposit("k-1", "1001", 500);
            assertThat(result.problem().type()).isEqualTo(DataProblem.Type.DATA_NOT_READY);
            assertThat(result.problem().toProblemDetail().status()).isEqualTo(503);
            assertThat(depositsRun).hasValue(0);
        }

        @Test
        void afterASwitchoverMovesU_cnToEu_newKeysAreRecordedInEu() {
            rules.set(rules.get().remap(Map.of("u-cn", "eu")));
            cn.reachable(false);
            assertThat(new Ledger(eu).deposit("k-1", "1001", 500).outcome())
                    .isEqualTo(IdempotencyResult.Outcome.EXECUTED);
            assertThat(eu.idempotency.idempotencyRecord("k-1").isOk()).isTrue();
        }
    }

    @Nested
    @DisplayName("5. an account id that belongs to no unit is the caller's mistake, not a wait")
    class NoUnit {

        @Test
        void readAndDeposit_are400NoUnit() {
            ReadinessResult<Balance> read = new Ledger(eu).balances.read("acct-x");
            assertThat(read.outcome()).isEqualTo(ReadinessResult.Outcome.NO_UNIT);
            assertThat(read.problem().toProblemDetail().status()).isEqualTo(400);
            assertThat(read.problem().retryable()).isFalse();
            IdempotencyResult deposit = new Ledger(eu).deposit("k-1", "acct-x", 500);
            assertThat(deposit.problem().type()).isEqualTo(DataProblem.Type.NO_UNIT);
            assertThat(depositsRun).hasValue(0);
        }
    }

    @Test
    void theIdempotencyStoreKeepsItsRecordsBesideTheServicesOwnTable() {
        IdempotencyStore store = cn.idempotency;
        new Ledger(cn).deposit("k-1", "1001", 500);
        assertThat(store.idempotencyRecord("k-1").value().userId()).isEqualTo("1001");
        assertThat(cn.balance("1001").value().cents()).isEqualTo(500);
    }
}
