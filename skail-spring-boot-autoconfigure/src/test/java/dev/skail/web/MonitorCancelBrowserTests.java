package dev.skail.web;

import java.time.Duration;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.runtime.TestApplication;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Monitor's Cancel button in a real headless Chromium: shown for an execution that has not ended, asks for
 * confirmation, and the execution ends CANCELLED; hidden once it has ended.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
                "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms" })
class MonitorCancelBrowserTests {

    private static WebDriver browser;

    private static MonitorPage page;

    @LocalServerPort
    int port;

    @Autowired
    SkailClient client;

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
    void cancelButtonAsksForConfirmationAndTheWaitingExecutionEndsCancelled() {
        this.client.trigger("esperarAprovacao", "monitor-cancel", "monitor-cancel");
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> this.client.find("monitor-cancel")
            .map((e) -> e.status() == ExecutionStatus.WAITING).orElse(false));

        browser.get("http://localhost:" + this.port + "/skail");
        browser.findElement(By.id("filter-id")).sendKeys("monitor-cancel");
        browser.findElement(By.id("apply-filters")).click();
        click(By.cssSelector("#executions tbody tr[data-task-id='monitor-cancel']"));
        waitForText(By.id("detail-status"), "WAITING");

        // dismissed: nothing happens
        click(By.id("cancel"));
        waiting().until(ExpectedConditions.alertIsPresent()).dismiss();
        assertThat(this.client.find("monitor-cancel").orElseThrow().status()).isEqualTo(ExecutionStatus.WAITING);

        click(By.id("cancel"));
        waiting().until(ExpectedConditions.alertIsPresent()).accept();

        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> this.client.find("monitor-cancel")
            .map((e) -> e.status() == ExecutionStatus.CANCELLED).orElse(false));
        // the page looks again shortly after the cancel request
        waitForText(By.id("detail-status"), "CANCELLED");
        waiting().until((driver) -> !driver.findElement(By.id("cancel")).isDisplayed());
        // the cancellation under its own heading (not under "Result"), said once; no event can wake it any more
        waitForText(By.id("outcome-title"), "Cancellation");
        String cancellation = browser.findElement(By.id("detail-outcome")).getText();
        assertThat(cancellation).startsWith("dev.skail.SkailCancelledException: Execution 'monitor-cancel' "
                + "(esperarAprovacao) was cancelled").containsOnlyOnce("dev.skail.SkailCancelledException:");
        assertThat(browser.findElement(By.id("fire-form")).isDisplayed()).isFalse();
        assertThat(browser.findElement(By.id("resume")).isDisplayed()).isFalse();
    }

    private static WebDriverWait waiting() {
        return page.waiting();
    }

    private static void click(By locator) {
        page.click(locator);
    }

    private static void waitForText(By locator, String text) {
        page.waitForText(locator, text);
    }
}
