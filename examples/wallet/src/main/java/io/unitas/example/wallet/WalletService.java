package io.unitas.example.wallet;

import io.unitas.spring.UnitasEntity;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableAsync;

/**
 * The wallet service: the starter, its own table and three declared beans (the region's database, the repository,
 * the wallet as a {@link UnitasEntity}). Everything unit-aware (the stamp, {@code @Idempotent} claimed in the user's
 * home region, the home-read server, reads that wait for the home, {@code @Async} carrying the stamp) is the
 * starter's, set in {@code wallet.yaml} and the properties each instance is started with.
 */
@SpringBootApplication
@EnableAsync
public class WalletService {

    /**
     * This region's database ({@code wallet.db.url}, {@code wallet.db.user}, {@code wallet.db.password}), which
     * holds the wallets and unitas's tables (idempotency records, replication positions).
     */
    @Bean
    DataSource walletDb(@Value("${wallet.db.url}") String url, @Value("${wallet.db.user:postgres}") String user,
                        @Value("${wallet.db.password:}") String password) throws SQLException {
        PGSimpleDataSource pg = new PGSimpleDataSource();
        pg.setUrl(url);
        pg.setUser(user);
        if (!password.isEmpty()) {
            pg.setPassword(password);
        }
        pg.setConnectTimeout(2);
        pg.setSocketTimeout(10);
        return pg;
    }

    @Bean
    Wallets wallets(DataSource walletDb) {
        return new Wallets(walletDb);
    }

    /** The wallet, declared once: the home-read server serves it, {@code UnitasReadiness} decodes it. */
    @Bean
    UnitasEntity<Wallet> walletEntity(Wallets wallets) {
        return UnitasEntity.builder("wallet", wallets::find)
                           .codec(Wallet::encode, Wallet::decode)
                           .version(Wallet::version)
                           .build();
    }

    /**
     * The application, reading {@code wallet.yaml} (not {@code application.yaml}: the service shares a class path with
     * others in the packaged {@code unitas.jar}).
     */
    public static SpringApplicationBuilder application() {
        return new SpringApplicationBuilder(WalletService.class).properties("spring.config.name=wallet");
    }

    public static void main(String[] args) {
        application().run(args);
    }
}
