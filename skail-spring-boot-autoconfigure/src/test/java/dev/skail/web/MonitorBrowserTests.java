package dev.skail.web;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.runtime.Effects;
import dev.skail.runtime.ExactValueFlows;
import dev.skail.runtime.TestApplication;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Monitor in a real headless Chromium (Debian's chromium and chromium-driver, installed by bin/test): a failed
 * execution is shown with its exception and resumed with the button; everything shown is text, never markup.
 */
@SpringBootTest(classes = { TestApplication.class, ExactValueFlows.class, ExactValueFlows.Seen.class },
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
                "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms" })
class MonitorBrowserTests {

    private static final String XSS = "<img src=x onerror=\"window.__xss=1\"><script>window.__xss=2</script>";

    private static WebDriver browser;

    private static MonitorPage page;

    @LocalServerPort
    int port;

    @Autowired
    SkailClient client;

    @Autowired
    Effects effects;

    @BeforeAll
    static void startBrowser() throws Exception {
        browser = Chromium.start();
        page = new MonitorPage(browser);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void failedExecutionIsShownWithItsExceptionAndTheResumeButtonBringsItBack() {
        this.effects.breakFor("monitor-1");
        this.client.trigger("pagarFatura", "monitor-1", "monitor-1");
        awaitStatus("monitor-1", ExecutionStatus.FAILED);

        page.open("http://localhost:" + this.port + "/skail");
        browser.findElement(By.id("filter-status")).sendKeys("FAILED");
        browser.findElement(By.id("filter-id")).sendKeys("monitor-1");
        browser.findElement(By.id("apply-filters")).click();
        assertThat(textOf(By.cssSelector("#executions tbody tr[data-task-id='monitor-1']"))).contains("pagarFatura")
            .contains("FAILED");
        click(By.cssSelector("#executions tbody tr[data-task-id='monitor-1']"));

        waitForText(By.id("detail-status"), "FAILED");
        // the exception under its heading, its "type: message" line once (the stack trace begins with it)
        assertThat(textOf(By.id("outcome-title"))).isEqualTo("Exception");
        assertThat(textOf(By.id("detail-outcome"))).startsWith("java.lang.IllegalStateException: bank offline\n")
            .containsOnlyOnce("java.lang.IllegalStateException: bank offline")
            .contains("at dev.skail.runtime.TestFlows.enviarPagamento");
        assertThat(textOf(By.id("timeline"))).contains("enviarPagamento").contains("bank offline")
            .contains("retried after 0 s").contains("gave up: attempts spent");
        // the attempts tables say what each column is, in words
        assertThat(page.headers(By.cssSelector("#timeline table.attempts"))).containsExactly("Attempt",
                "Function attempt", "Started", "Took", "Outcome", "Exception", "Then");
        assertThat(page.headers(By.id("function-attempts"))).containsExactly("Function attempt", "Started", "Took",
                "Outcome", "Exception", "Then");
        assertThat(textOf(By.id("function-attempts"))).contains("failed").contains("gave up: attempts spent");
        // a FAILED execution is resumed, not cancelled, and takes no event
        assertThat(page.shown(By.id("resume"))).isTrue();
        assertThat(page.shown(By.id("cancel"))).isFalse();
        assertThat(page.shown(By.id("fire-form"))).isFalse();
        assertThat(browser.findElement(By.id("download")).getAttribute("href"))
            .endsWith("/api/v1/executions/monitor-1/history?download=true");

        this.effects.fix("monitor-1");
        click(By.id("resume"));

        waitForText(By.id("detail-status"), "COMPLETED");
        assertThat(this.client.find("monitor-1").orElseThrow().status()).isEqualTo(ExecutionStatus.COMPLETED);
    }

    @Test
    void markupInArgumentsAndExceptionsIsShownAsTextAndNeverRuns() {
        this.client.trigger("ecoar", "monitor-xss", XSS);
        awaitStatus("monitor-xss", ExecutionStatus.FAILED);

        page.open("http://localhost:" + this.port + "/skail");
        browser.findElement(By.id("filter-id")).sendKeys("monitor-xss");
        browser.findElement(By.id("apply-filters")).click();
        click(By.cssSelector("#executions tbody tr[data-task-id='monitor-xss']"));
        waitForText(By.id("detail-status"), "FAILED");

        // the arguments are shown as JSON: the markup is there as text, its quotes escaped
        assertThat(textOf(By.id("detail-arguments"))).contains("<img src=x onerror=")
            .contains("<script>window.__xss=2</script>");
        assertThat(textOf(By.id("detail-outcome"))).contains(XSS);
        assertThat(textOf(By.id("timeline"))).contains(XSS);
        assertThat(browser.findElements(By.cssSelector("#detail-view img, #detail-view script"))).isEmpty();
        assertThat(((JavascriptExecutor) browser).executeScript("return window.__xss === undefined")).isEqualTo(true);
    }

    @Test
    void amountsAreShownAsRecordedWithTheirScale() {
        this.client.trigger("somarItens", "monitor-amounts", List.of(
                new ExactValueFlows.Item("SKU-1", 2, new BigDecimal("75.00")),
                new ExactValueFlows.Item("SKU-2", 1, new BigDecimal("12345678901234567.89"))));
        awaitStatus("monitor-amounts", ExecutionStatus.COMPLETED);

        page.open("http://localhost:" + this.port + "/skail#monitor-amounts");
        waitForText(By.id("detail-status"), "COMPLETED");

        assertThat(textOf(By.id("detail-arguments"))).contains("\"preco\": 75.00")
            .contains("\"preco\": 12345678901234567.89");
        assertThat(textOf(By.id("detail-outcome"))).isEqualTo("12345678901234717.89");
        assertThat(textOf(By.cssSelector("#detail-summary"))).contains("Attempt\n1");
    }

    @Test
    void firingAnEventFromTheMonitorWakesTheExecution() {
        this.client.trigger("esperarAprovacao", "monitor-fire", "monitor-fire");
        awaitStatus("monitor-fire", ExecutionStatus.WAITING);

        page.open("http://localhost:" + this.port + "/skail");
        browser.findElement(By.id("filter-id")).sendKeys("monitor-fire");
        browser.findElement(By.id("apply-filters")).click();
        click(By.cssSelector("#executions tbody tr[data-task-id='monitor-fire']"));
        waitForText(By.id("detail-status"), "WAITING");
        assertThat(page.shown(By.id("outcome-section"))).isFalse();
        browser.findElement(By.id("fire-name")).sendKeys("aprovacao");
        browser.findElement(By.id("fire-payload")).sendKeys("\"monitor\"");
        browser.findElement(By.id("fire")).click();

        waitForText(By.id("detail-status"), "COMPLETED");
        assertThat(textOf(By.id("outcome-title"))).isEqualTo("Result");
        assertThat(textOf(By.id("detail-outcome"))).contains("approved by monitor");
        // it has ended: no more events, nothing to cancel
        page.waitUntilHidden(By.id("fire-form"));
        assertThat(page.shown(By.id("cancel"))).isFalse();
        assertThat(page.shown(By.id("resume"))).isFalse();
    }

    private void awaitStatus(String taskId, ExecutionStatus status) {
        Awaitility.await().atMost(Duration.ofSeconds(20))
            .until(() -> this.client.find(taskId).map((e) -> e.status() == status).orElse(false));
    }

    private static String textOf(By locator) {
        return page.textOf(locator);
    }

    private static void click(By locator) {
        page.click(locator);
    }

    private static void waitForText(By locator, String text) {
        page.waitForText(locator, text);
    }
}
