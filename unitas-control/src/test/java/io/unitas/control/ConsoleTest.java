package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConsistencyFile;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}): it loads, shows
 * each region's state, each staleness budget against the lag and each region's open siblings and drift per unit,
 * runs a dry run without moving anything, then the switchover with its live progress, and follows changes live.
 * Leaves a screenshot in {@code target/console.png}.
 */
class ConsoleTest {

    @TempDir
    Path dir;

    private ControlServer server;
    private WebDriver browser;

    @BeforeEach
    void start() throws Exception {
        server = ControlServer.builder().port(0).dataDir(dir.resolve("data")).tokens(Fixtures.tokensFile(dir))
                              .healthFreshness(Duration.ofMinutes(5), Duration.ofMinutes(5))
                              .residency(ConsistencyFile.parse(ConfigDocument.parse("consistency.yaml", """
                                      entities:
                                        recommendations:
                                          consistency: bounded-staleness
                                          staleness_budget: 500ms
                                        prices:
                                          consistency: bounded-staleness
                                          staleness_budget: 5s
                                      """)))
                              .start();
        RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
        Fixtures.seed(admin, Instant.now(), 40);
        // eu's database keeps two changes of u-de (the oldest 1.5 s old), and cn's has applied none of them
        Instant now = Instant.now();
        String eu = Fixtures.report("eu", 2, now, true, 850);
        admin.send("PUT", "/api/v1/health/eu", eu.substring(0, eu.length() - 1) + ",\"positions\":{\"read_at\":\""
                + now + "\",\"written\":{\"u-de\":{\"pending\":2,\"oldest\":5,\"oldest_written_at\":\""
                + now.minusMillis(1_500) + "\",\"head\":9,\"head_written_at\":\"" + now + "\"}},\"applied\":{}}}",
                Map.of());
        String cn = Fixtures.reportWithUnitLag("cn", 2, now, "eu", 0, now, "u-sh", "u-bj");
        // cn's database: two addresses of u-de kept as siblings, u-de's copy reconciled against eu with one range
        // left (cn's writes on their way there), u-ny's last pass failed, u-bj's not reconciled for three windows
        admin.send("PUT", "/api/v1/health/cn", cn.substring(0, cn.length() - 1) + ",\"positions\":{\"read_at\":\""
                + now + "\",\"written\":{},\"applied\":{\"eu\":{\"u-de\":0}}},\"reconciliation\":{\"read_at\":\""
                + now + "\",\"units\":{\"u-de\":{\"open_siblings\":2,\"oldest_sibling_at\":\"" + now.minusSeconds(60)
                + "\",\"pass\":{\"home\":\"eu\",\"at\":\"" + now.minusSeconds(2) + "\",\"window_ms\":10000,"
                + "\"ranges_differing\":3,\"ranges_pending\":1,\"keys_repaired\":5}},"
                + "\"u-ny\":{\"open_siblings\":0,\"pass\":{\"home\":\"us\",\"at\":\"" + now.minusSeconds(3)
                + "\",\"window_ms\":10000,\"ranges_differing\":0,\"ranges_pending\":0,\"keys_repaired\":0,"
                + "\"failure\":\"cannot digest likes of unit u-ny\"}},"
                + "\"u-bj\":{\"open_siblings\":0,\"pass\":{\"home\":\"eu\",\"at\":\"" + now.minusSeconds(31)
                + "\",\"window_ms\":10000,\"ranges_differing\":0,\"ranges_pending\":0,\"keys_repaired\":0}}}}}",
                Map.of());
        admin.send("PUT", "/api/v1/health/us", "{\"sequence\":2,\"observed_at\":\"" + Instant.now() + "\","
                + "\"healthy\":false,\"writable\":false,\"replication_lag_ms\":-1,\"score\":0.1,"
                + "\"reasons\":[\"pg-primary: read-only (transaction_read_only=on)\"],\"region\":\"us\","
                + "\"checks\":{\"pg-primary\":{\"up\":false,\"latency_ms\":3,"
                + "\"reason\":\"read-only (transaction_read_only=on)\"}}}", Map.of());
        admin.post("/api/v1/fences", "{\"units\":[\"u-ny\"],\"reason\":\"us read-only\"}");

        ChromeOptions options = new ChromeOptions();
        options.setBinary(executable("/usr/bin/chromium"));
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                             "--disable-background-networking", "--disable-component-update", "--disable-sync",
                             "--disable-dev-shm-usage", "--window-size=1280,1500",
                             "--user-data-dir=" + Files.createDirectories(dir.resolve("chromium-profile")));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(executable("/usr/bin/chromedriver"))).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    private static String executable(String path) {
        assertThat(Path.of(path)).as(path + " (install chromium and chromium-driver: .ci/install-servers)")
                                 .isExecutable();
        return path;
    }

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        server.close();
    }

    @Test
    void theConsoleShowsRegionsAndUnits_runsADryRunThenTheSwitchover_andUpdatesLive() throws Exception {
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        browser.get(server.uri() + "/#token=" + Fixtures.OPERATOR.secret());

        wait.until(ExpectedConditions.attributeToBe(By.id("region-cn"), "data-state", "healthy"));
        assertThat(browser.findElement(By.id("region-us")).getAttribute("data-state")).isEqualTo("unhealthy");
        assertThat(browser.findElement(By.id("region-us")).getText()).contains("read-only (transaction_read_only=on)");
        assertThat(browser.findElement(By.cssSelector("#region-eu .lag")).getText()).isEqualTo("850 ms");
        // the score bar is drawn under the Content-Security-Policy (no style attributes): cn's full, us's a tenth
        assertThat(browser.findElement(By.cssSelector("#region-cn .score > div")).getRect().getWidth())
                .isGreaterThan(5 * browser.findElement(By.cssSelector("#region-us .score > div")).getRect()
                                          .getWidth())
                .isPositive();
        assertThat(browser.findElement(By.id("unit-u-ny")).getAttribute("data-fenced")).isEqualTo("true");
        // lag per unit and link: as cn measured it, and as computed from eu's and cn's positions
        assertThat(browser.findElement(By.id("link-u-sh-cn-eu")).getText()).contains("cn → eu (from home)")
                                                                           .contains("0 ms").contains("measured by cn");
        assertThat(browser.findElement(By.id("link-u-de-eu-cn")).getText()).contains("eu → cn (from home)")
                                                                           .contains("2").contains("1500 ms")
                                                                           .contains("positions");
        // the staleness budgets against the largest lag reported (eu's database, 850 ms)
        wait.until(ExpectedConditions.attributeToBe(By.id("budget-recommendations"), "data-over", "true"));
        assertThat(browser.findElement(By.id("budget-recommendations")).getText())
                .contains("consistency.yaml:4: entities.recommendations.staleness_budget").contains("500ms")
                .contains("850 ms").contains("the database of eu").contains("over budget");
        assertThat(browser.findElement(By.id("budget-prices")).getAttribute("data-over")).isEqualTo("false");
        assertThat(browser.findElement(By.id("budget-prices")).getText()).contains("5s").contains("within");
        // open siblings and drift per region and unit, from cn's report
        assertThat(browser.findElement(By.id("drift-cn-u-de")).getAttribute("data-status")).isEqualTo("conflict");
        assertThat(browser.findElement(By.id("drift-cn-u-de")).getText()).contains("siblings open")
                .contains("against eu").contains("3 ranges differed, 5 keys repaired, 1 pending")
                .contains("writes on their way home");
        assertThat(browser.findElement(By.id("drift-cn-u-ny")).getAttribute("data-status")).isEqualTo("failed");
        assertThat(browser.findElement(By.id("drift-cn-u-ny")).getText())
                .contains("failed: cannot digest likes of unit u-ny");
        assertThat(browser.findElement(By.id("drift-cn-u-bj")).getAttribute("data-status")).isEqualTo("stalled");
        assertThat(browser.findElements(By.cssSelector("#drift tbody tr"))).as("eu and us report none").hasSize(3);
        assertThat(browser.findElement(By.id("connection")).getText()).isEqualTo("live");
        assertThat(browser.getCurrentUrl()).doesNotContain(Fixtures.OPERATOR.secret());

        long before = server.revision();
        assertThat(browser.findElement(By.id("start-button")).isEnabled()).as("start before a plan").isFalse();
        browser.findElement(By.id("sw-units")).sendKeys("u-sh,u-bj");
        new Select(browser.findElement(By.id("sw-target"))).selectByValue("eu");
        browser.findElement(By.id("plan-button")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("plan-verdict"), "Plan accepted"));
        assertThat(browser.findElement(By.id("plan-moves")).getText()).contains("u-sh cn eu 100").contains("u-bj");
        assertThat(browser.findElement(By.id("plan-load")).getText()).contains("eu 300 500 500");
        assertThat(browser.findElement(By.id("start-button")).isEnabled()).isTrue();
        assertThat(server.revision()).isEqualTo(before);

        RawClient.of(server.uri(), Fixtures.OPERATOR.secret())
                     .post("/api/v1/fences", "{\"units\":[\"u-sh\"],\"reason\":\"live update\"}");
        wait.until(ExpectedConditions.attributeToBe(By.id("unit-u-sh"), "data-fenced", "true"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("audit"), "fence.add"));

        browser.findElement(By.id("start-button")).click();
        // cn measures again once the fence is up: a lag measured before it cannot flip the switchover
        wait.until(ExpectedConditions.textToBe(By.id("switchover-phase"), "catching_up"));
        Instant fenced = Instant.now();
        RawClient.of(server.uri(), Fixtures.ADMIN.secret()).send("PUT", "/api/v1/health/cn",
                Fixtures.reportWithUnitLag("cn", 3, fenced, "eu", 0, fenced, "u-sh", "u-bj"), Map.of());
        wait.until(ExpectedConditions.textToBe(By.id("switchover-phase"), "completed"));
        // cn's new report reads no siblings and no pass: the table follows it live
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("drift"), "No conflicts or reconciliation"));
        assertThat(browser.findElement(By.id("progress")).getText()).contains("flipped").contains("completed");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#unit-u-bj .tag.home"), "eu"));

        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target", "console.png"), png);
        assertThat(png.length).isGreaterThan(10_000);
    }
}
