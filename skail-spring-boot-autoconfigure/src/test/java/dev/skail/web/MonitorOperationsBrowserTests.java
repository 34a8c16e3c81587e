package dev.skail.web;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailStep;
import dev.skail.runtime.ExactValueFlows;
import dev.skail.runtime.TestApplication;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.Select;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.filter.OncePerRequestFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Monitor as an operator uses it, in a real headless Chromium whose time zone is São Paulo's (UTC−3, no daylight
 * saving): what it refreshes by itself and when it holds back, links between a parent and its children, times in
 * the operator's zone with UTC on hover, and counts that cannot be read without losing the list.
 */
@SpringBootTest(classes = { TestApplication.class, ExactValueFlows.class, ExactValueFlows.Seen.class,
        MonitorOperationsBrowserTests.SlowCounts.class },
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
                "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms" })
class MonitorOperationsBrowserTests {

    private static final ZoneId SAO_PAULO = ZoneId.of("America/Sao_Paulo");

    private static WebDriver browser;

    private static MonitorPage page;

    @LocalServerPort
    int port;

    @Autowired
    SkailClient client;

    @Autowired
    SlowCounts slowCounts;

    @BeforeAll
    static void startBrowser() throws Exception {
        browser = Chromium.start();
        ((ChromeDriver) browser).executeCdpCommand("Emulation.setTimezoneOverride",
                Map.of("timezoneId", SAO_PAULO.getId()));
        page = new MonitorPage(browser);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void listRefreshesItselfEveryFiveSecondsByDefaultAndKeepsWhatTheOperatorSelected() {
        waiting("auto-1");
        page.listExecutionsLike(base(), "auto-");
        page.waitForText(By.cssSelector("#executions tbody tr[data-task-id='auto-1'] td:nth-child(3)"), "WAITING");
        assertThat(browser.findElement(By.id("auto-refresh")).isSelected()).isTrue();
        assertThat(new Select(browser.findElement(By.id("refresh-interval"))).getFirstSelectedOption().getText())
            .isEqualTo("every 5 s");
        // the operator selects the id to copy it
        js().executeScript("window.getSelection().selectAllChildren(arguments[0])",
                browser.findElement(By.cssSelector("#executions tbody tr[data-task-id='auto-1'] td a")));

        waiting("auto-2");

        // no click: the next refresh shows it, and the selection is still there
        page.waitUntilShown(MonitorPage.row("auto-2"));
        assertThat(js().executeScript("return String(window.getSelection())")).isEqualTo("auto-1");
        assertThat(page.textOf(By.id("message"))).isEmpty();
    }

    @Test
    void refreshWaitsWhileTheOperatorTypesAndStopsWhenTurnedOff() {
        waiting("typing-1");
        page.listExecutionsLike(base(), "typing-");
        page.waitUntilShown(MonitorPage.row("typing-1"));
        new Select(browser.findElement(By.id("refresh-interval"))).selectByVisibleText("every 2 s");

        browser.findElement(By.id("filter-function")).sendKeys("esperar");
        page.waitForText(By.id("refresh-state"), "paused while you type");
        waiting("typing-2");
        Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
            .until(() -> !page.shown(MonitorPage.row("typing-2")));

        // the field loses focus: the refresh goes on, with the filters applied (not the one being typed)
        browser.findElement(By.tagName("h1")).click();
        page.waitUntilShown(MonitorPage.row("typing-2"));

        browser.findElement(By.id("auto-refresh")).click();
        page.waitForText(By.id("refresh-state"), "auto-refresh off");
        waiting("typing-3");
        Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
            .until(() -> !page.shown(MonitorPage.row("typing-3")));
        page.click(By.id("refresh-now"));
        page.waitUntilShown(MonitorPage.row("typing-3"));
        browser.findElement(By.id("auto-refresh")).click();
    }

    @Test
    void parentAndChildExecutionsLinkToEachOther() {
        this.client.trigger("pagarPedido", "familia-1", new ExactValueFlows.Pedido(UUID.randomUUID(),
                new BigDecimal("150.00"), OffsetDateTime.parse("2026-03-01T09:30:00-03:00"),
                List.of(new ExactValueFlows.Item("SKU-1", 2, new BigDecimal("75.00")))));
        awaitStatus("familia-1", ExecutionStatus.WAITING);
        this.client.fire("familia-1", "pago", new BigDecimal("150.00"));
        awaitStatus("familia-1", ExecutionStatus.COMPLETED);
        String child = this.client.history("familia-1").steps().stream()
            .filter((step) -> step.childTaskId() != null)
            .map(SkailStep::childTaskId)
            .findFirst()
            .orElseThrow();

        page.open(base() + "/skail#familia-1");
        page.waitForText(By.id("detail-status"), "COMPLETED");
        assertThat(page.textOf(By.id("detail-children"))).contains(child).contains("somarItens");
        assertThat(page.attributeOf(By.cssSelector("#timeline a"), "href")).endsWith("#" + child.replace(":", "%3A"));
        assertThat(browser.findElements(By.id("detail-parent"))).isEmpty();

        page.click(By.cssSelector("#detail-children a"));
        page.waitForText(By.id("detail-title"), child);
        page.waitForText(By.id("detail-status"), "COMPLETED");
        assertThat(page.textOf(By.id("detail-summary"))).contains("Function\nsomarItens");
        assertThat(page.textOf(By.id("detail-outcome"))).isEqualTo("150.00");

        page.click(By.cssSelector("#detail-parent a"));
        page.waitForText(By.id("detail-title"), "familia-1");
        page.waitForText(By.cssSelector("#detail-children a"), child);

        browser.navigate().back();
        page.waitForText(By.id("detail-title"), child);

        // the list links the child to its parent too
        page.click(By.id("back"));
        page.waitUntilShown(By.id("list-view"));
        browser.findElement(By.id("filter-id")).sendKeys("familia-1");
        browser.findElement(By.id("apply-filters")).click();
        page.click(By.cssSelector("#executions tbody tr[data-task-id='" + child + "'] td:nth-child(5) a"));
        page.waitForText(By.id("detail-title"), "familia-1");
    }

    @Test
    void timesAreShownInTheOperatorsTimeZoneWithTheUtcInstantOnHover() {
        waiting("zona-1");
        SkailExecution execution = this.client.find("zona-1").orElseThrow();
        Instant created = execution.createdAt().truncatedTo(ChronoUnit.MILLIS);
        String local = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").format(created.atZone(SAO_PAULO));

        page.listExecutionsLike(base(), "zona-1");
        By createdCell = By.cssSelector("#executions tbody tr[data-task-id='zona-1'] td:nth-child(6) time");
        assertThat(page.textOf(createdCell)).isEqualTo(local);
        assertThat(Instant.parse(page.attributeOf(createdCell, "title"))).isEqualTo(created);
        assertThat(page.attributeOf(createdCell, "title")).endsWith("Z");
        assertThat(page.textOf(By.id("time-zone")))
            .isEqualTo("Times in America/Sao_Paulo (UTC−03:00); hover a time for UTC");

        page.click(By.cssSelector("#executions tbody tr[data-task-id='zona-1'] td a"));
        page.waitForText(By.id("detail-status"), "WAITING");
        By createdInDetail = By.xpath("//dl[@id='detail-summary']/dt[.='Created']/following-sibling::dd[1]/time");
        assertThat(page.textOf(createdInDetail)).isEqualTo(local);
        assertThat(Instant.parse(page.attributeOf(createdInDetail, "title"))).isEqualTo(created);
        // what the execution waits for is said in words
        assertThat(page.textOf(By.id("detail-summary"))).contains("Waits for event\naprovacao");
    }

    @Test
    void countsThatCannotBeReadShowAsUnknownWithTheReasonWhileTheListStillWorks() {
        waiting("contagem-1");
        this.slowCounts.answer503(true);
        try {
            page.listExecutionsLike(base(), "contagem-");

            page.waitUntilShown(MonitorPage.row("contagem-1"));
            page.waitForText(By.id("message"), "Counts unavailable: " + SlowCounts.DETAIL);
            assertThat(page.textOf(By.cssSelector("#counts button[data-status='']"))).isEqualTo("All\n–");
            assertThat(page.textOf(By.cssSelector("#counts button[data-status='WAITING']"))).isEqualTo("WAITING\n–");
            // the other filters and the list's paging still work
            assertThat(page.shown(By.id("filter-tags"))).isTrue();
            assertThat(page.textOf(By.id("page-number"))).isEqualTo("page 1");
        }
        finally {
            this.slowCounts.answer503(false);
        }

        // once they can be read, they show, and the message goes
        page.click(By.id("refresh-now"));
        page.waitForText(By.cssSelector("#counts button[data-status='']"), "All\n1");
        assertThat(page.textOf(By.cssSelector("#counts button[data-status='WAITING']"))).isEqualTo("WAITING\n1");
        page.waitForText(By.id("message"), "");
    }

    private void waiting(String taskId) {
        this.client.trigger("esperarAprovacao", taskId, taskId);
        awaitStatus(taskId, ExecutionStatus.WAITING);
    }

    private void awaitStatus(String taskId, ExecutionStatus status) {
        Awaitility.await().atMost(Duration.ofSeconds(20))
            .until(() -> this.client.find(taskId).map((e) -> e.status() == status).orElse(false));
    }

    private String base() {
        return "http://localhost:" + this.port;
    }

    private static JavascriptExecutor js() {
        return (JavascriptExecutor) browser;
    }

    /**
     * Counts of a store too large to count within the request timeout: while switched on, {@code GET
     * /api/v1/executions/counts} answers 503 as the API does when the store does not answer in time; every other
     * route answers as usual.
     */
    static class SlowCounts extends OncePerRequestFilter {

        static final String DETAIL = "the store did not answer within 5s";

        private final AtomicBoolean on = new AtomicBoolean();

        void answer503(boolean on) {
            this.on.set(on);
        }

        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            if (this.on.get() && request.getRequestURI().endsWith("/api/v1/executions/counts")) {
                response.setStatus(503);
                response.setHeader("Retry-After", "5");
                response.setContentType("application/problem+json");
                response.getWriter().write("{\"type\":\"about:blank\",\"title\":\"Store unavailable\",\"status\":503,"
                        + "\"detail\":\"" + DETAIL + "\",\"instance\":\"/api/v1/executions/counts\"}");
                return;
            }
            chain.doFilter(request, response);
        }
    }
}
