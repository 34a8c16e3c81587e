package dev.skail.web;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import dev.skail.ExecutionStatus;
import dev.skail.SkailSchedule;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTestConfiguration;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Monitor's Schedules section in a real headless Chromium: each schedule with its cron, zone and next tick, and a
 * link to the execution of its latest tick, which opens in the Monitor's detail view; the section refreshes with the
 * list.
 */
@SpringBootTest(classes = MonitorSchedulesBrowserTests.App.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=1h",
                "skail.schedules.poll-interval=1h" })
class MonitorSchedulesBrowserTests {

    private static WebDriver browser;

    @LocalServerPort
    int port;

    @Autowired
    VirtualClock clock;

    @Autowired
    SkailAwait await;

    @BeforeAll
    static void startBrowser() throws Exception {
        browser = Chromium.start();
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void eachScheduleIsShownWithItsNextTickAndALinkToItsLatestExecution() {
        Instant tick = this.clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
        this.clock.advance(Duration.between(this.clock.instant(), tick));
        String taskId = "relatorioDePedidos:" + tick;
        this.await.status(taskId, ExecutionStatus.COMPLETED);

        browser.get("http://localhost:" + this.port + "/skail");

        By relatorio = By.cssSelector("#schedules tbody tr[data-function='relatorioDePedidos']");
        assertThat(textOf(relatorio)).contains("relatorioDePedidos").contains("0 0 * * * *").contains("UTC")
            .contains(taskId).contains("v1.0.0");
        assertThat(textOf(By.cssSelector("#schedules tbody tr[data-function='limparCarrinhos']")))
            .contains("disabled");

        // the next tick: the section refreshes with the list, no reload
        Instant next = tick.plus(Duration.ofHours(1));
        this.clock.advance(Duration.between(this.clock.instant(), next));
        String nextTaskId = "relatorioDePedidos:" + next;
        this.await.status(nextTaskId, ExecutionStatus.COMPLETED);
        waiting().until((driver) -> driver.findElements(relatorio).stream()
            .anyMatch((row) -> row.getText().contains(nextTaskId)));
        // the previous tick is still in the list of executions
        assertThat(textOf(By.cssSelector("#executions tbody tr[data-task-id='" + taskId + "']"))).contains(taskId);

        click(By.cssSelector("#schedules tbody tr[data-function='relatorioDePedidos'] a"));
        waiting().until((driver) -> driver.findElements(By.id("detail-title")).stream()
            .anyMatch((title) -> title.getText().equals(nextTaskId)));
        waiting().until((driver) -> driver.findElements(By.id("detail-status")).stream()
            .anyMatch((status) -> status.getText().equals("COMPLETED")));
    }

    /** The page re-renders what it shows: each read retries an element that was just replaced. */
    private static WebDriverWait waiting() {
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    private static String textOf(By locator) {
        return waiting().until((driver) -> {
            var found = driver.findElements(locator);
            return found.isEmpty() || found.get(0).getText().isBlank() ? null : found.get(0).getText();
        });
    }

    private static void click(By locator) {
        waiting().until((driver) -> {
            var found = driver.findElements(locator);
            if (found.isEmpty()) {
                return false;
            }
            found.get(0).click();
            return true;
        });
    }

    @Service
    public static class Relatorios {

        @SkailFunction
        @SkailSchedule(cron = "0 0 * * * *")
        public String relatorioDePedidos() {
            return enviarRelatorio();
        }

        @SkailFunction
        @SkailSchedule(cron = SkailSchedule.DISABLED)
        public void limparCarrinhos() {
        }

        @SkailCommand
        public String enviarRelatorio() {
            return "enviado";
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ Relatorios.class, SkailTestConfiguration.class })
    static class App {

    }
}
