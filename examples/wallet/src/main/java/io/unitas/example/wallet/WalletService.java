package io.unitas.example.wallet;

import io.unitas.spring.UnitasChangeHandler;
import io.unitas.spring.UnitasEntity;
import io.unitas.spring.UnitasOutbox;
import javax.sql.DataSource;
import com.zaxxer.hikari.HikariDataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableAsync;

/**
 * The wallet service: the starter, its own table and four declared beans (the region's database, the repository,
 * the wallet as a {@link UnitasEntity}, the {@link UnitasChangeHandler} writing other regions' wallets). Everything
 * unit-aware (the stamp, {@code @Idempotent} claimed in the user's home region, the home-read server, reads that wait
 * for the home, {@code @Async} carrying the stamp, replication with {@code unitas.replication.transport}) is the
 * starter's, set in {@code wallet.yaml} and the properties each instance is started with.
 */
@SpringBootApplication
@EnableAsync
public class WalletService {

    /**
     * This region's database ({@code wallet.db.url}, {@code wallet.db.user}, {@code wallet.db.password}), which
     * holds the wallets and unitas's tables (idempotency records, replication positions), through a pool: a new
     * PostgreSQL session per statement would start a server process each time.
     */
    @Bean(destroyMethod = "close")
    HikariDataSource walletDb(@Value("${wallet.db.url}") String url,
                              @Value("${wallet.db.user:postgres}") String user,
                              @Value("${wallet.db.password:}") String password) {
        HikariDataSource pool = new HikariDataSource();
        pool.setPoolName("wallet-db");
        pool.setJdbcUrl(url);
        pool.setUsername(user);
        if (!password.isEmpty()) {
            pool.setPassword(password);
        }
        pool.setMaximumPoolSize(8);
        pool.setMinimumIdle(0);                 // no connection opened until a bean asks for one, as before the pool
        pool.setInitializationFailTimeout(-1);
        pool.setConnectionTimeout(2_000);
        pool.addDataSourceProperty("socketTimeout", "10");
        return pool;
    }

    /** The repository; it appends each deposit's change when replication is on ({@code unitas.replication.*}). */
    @Bean
    Wallets wallets(DataSource walletDb, ObjectProvider<UnitasOutbox> outbox) {
        return new Wallets(walletDb, outbox.getIfAvailable());
    }

    /** The wallet, declared once: the home-read server serves it, {@code UnitasReadiness} decodes it. */
    @Bean
    UnitasEntity<Wallet> walletEntity(Wallets wallets) {
        return UnitasEntity.builder(Wallets.TYPE, wallets::find)
                           .codec(Wallet::encode, Wallet::decode)
                           .version(Wallet::version)
                           .build();
    }

    /**
     * Other regions' deposits, written here in the applier's transaction: the wallet, a newer version over an older
     * one only, and the key it was charged under; and, once a user's unit has moved here in a failover, the deposits
     * the old home had not shipped, reconciled ({@link Wallets#reconcile}).
     */
    @Bean
    UnitasChangeHandler walletChanges(Wallets wallets) {
        return UnitasChangeHandler.of(Wallets.TYPE, Wallets::apply).reconciledBy(wallets::reconcile);
    }

    /**
     * The application, reading {@code wallet.yaml} (not {@code application.yaml}: the service shares a class path with
     * others in the packaged {@code unitas-playground.jar}).
     */
    public static SpringApplicationBuilder application() {
        return new SpringApplicationBuilder(WalletService.class).properties("spring.config.name=wallet");
    }

    public static void main(String[] args) {
        application().run(args);
    }
}
