package dev.skail.web;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.runtime.ExactValueFlows;
import dev.skail.runtime.TestApplication;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Monitor's counts, time range, business keys and bulk actions against the search API's contract, before that
 * API exists: the browser answers {@code GET /api/v1/executions/counts} and {@code POST /api/v1/executions/cancel}
 * ({@code /resume}) itself, as the contract says, and notes what the page asked; the list still comes from the
 * application. Once the API is there, tests against it replace the stand-in answers.
 */
@SpringBootTest(classes = { TestApplication.class, ExactValueFlows.class, ExactValueFlows.Seen.class },
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
                "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms" })
class MonitorSearchContractBrowserTests {

    /** Answers the search API's routes in the page, as its contract says; everything else goes to the server. */
    private static final String SEARCH_API = """
            (() => {
              const real = window.fetch.bind(window);
              const stub = window.__searchApi = { counts: { total: 0 }, answers: [], asked: [] };
              const answer = (status, body) => new Response(JSON.stringify(body), { status: status,
                  headers: { 'Content-Type': status < 300 ? 'application/json' : 'application/problem+json' } });
              window.fetch = async (input, init) => {
                const url = new URL(typeof input === 'string' ? input : input.url, location.href);
                const method = (init && init.method) || 'GET';
                if (method === 'GET' && url.pathname.endsWith('/api/v1/executions/counts')) {
                  stub.asked.push('GET counts' + url.search);
                  return answer(200, stub.counts);
                }
                const bulk = /\\/api\\/v1\\/executions\\/(cancel|resume)$/.exec(url.pathname);
                if (method === 'POST' && bulk) {
                  stub.asked.push('POST ' + bulk[1] + url.search);
                  const next = stub.answers.shift();
                  if (next.countsAfter) stub.counts = next.countsAfter;
                  return answer(next.status, next.body);
                }
                return real(input, init);
              };
            })();
            """;

    private static WebDriver browser;

    private static MonitorPage page;

    private static String script;

    @LocalServerPort
    int port;

    @Autowired
    SkailClient client;

    @BeforeAll
    static void startBrowser() throws Exception {
        browser = Chromium.start();
        ChromeDriver chrome = (ChromeDriver) browser;
        chrome.executeCdpCommand("Emulation.setTimezoneOverride", Map.of("timezoneId", "America/Sao_Paulo"));
        script = (String) chrome.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", SEARCH_API))
            .get("identifier");
        page = new MonitorPage(browser);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            ((ChromeDriver) browser).executeCdpCommand("Page.removeScriptToEvaluateOnNewDocument",
                    Map.of("identifier", script));
            browser.quit();
        }
    }

    @AfterEach
    void noAlertLeftOpen() {
        try {
            browser.switchTo().alert().dismiss();
        }
        catch (org.openqa.selenium.NoAlertPresentException ex) {
            // none: as expected
        }
    }

    @Test
    void countsByStatusAreShownAndAClickOnOneShowsThoseExecutions() {
        start("esperarAprovacao", "contrato-w", ExecutionStatus.WAITING);
        start("ecoar", "contrato-f", ExecutionStatus.FAILED);

        openWithCounts("{\"PENDING\":0,\"RUNNING\":0,\"WAITING\":1,\"COMPLETED\":0,\"FAILED\":1,\"CANCELLED\":0,"
                + "\"total\":2}");
        browser.findElement(By.id("filter-id")).sendKeys("contrato-");
        browser.findElement(By.id("apply-filters")).click();
        page.waitUntilShown(MonitorPage.row("contrato-w"));
        page.waitUntilShown(MonitorPage.row("contrato-f"));

        page.waitUntilShown(By.id("counts"));
        assertThat(page.textOf(By.cssSelector("#counts button[data-status='']"))).isEqualTo("All\n2");
        assertThat(page.textOf(By.cssSelector("#counts button[data-status='FAILED']"))).isEqualTo("FAILED\n1");
        assertThat(page.textOf(By.cssSelector("#counts button[data-status='COMPLETED']"))).isEqualTo("COMPLETED\n0");
        assertThat(page.shown(By.id("filter-from"))).isTrue();
        assertThat(page.shown(By.id("filter-tags"))).isTrue();
        assertThat(page.shown(By.id("bulk-cancel"))).isTrue();

        page.click(By.cssSelector("#counts button[data-status='FAILED']"));

        page.waitUntilHidden(MonitorPage.row("contrato-w"));
        assertThat(page.shown(MonitorPage.row("contrato-f"))).isTrue();
        assertThat(new Select(browser.findElement(By.id("filter-status"))).getFirstSelectedOption().getText())
            .isEqualTo("FAILED");
        page.waiting().until((driver) -> "true".equals(driver
            .findElement(By.cssSelector("#counts button[data-status='FAILED']")).getAttribute("aria-pressed")));
        // the counts are asked with the list's filters but its status, so each says what a click on it shows
        assertThat(asked()).contains("GET counts?id=contrato-").noneMatch((asked) -> asked.contains("status="));
    }

    @Test
    void bulkCancelSaysHowManyItActsOnAndAsksAgainWhenTheSetChanged() {
        openWithCounts("{\"WAITING\":2,\"total\":2}");
        page.waitUntilShown(By.id("bulk-cancel"));
        browser.findElement(By.id("filter-id")).sendKeys("contrato-");
        ((JavascriptExecutor) browser).executeScript("arguments[0].value = '2026-03-01T09:30:00'",
                browser.findElement(By.id("filter-from")));
        browser.findElement(By.id("filter-tags")).sendKeys("cliente:42, canal:web");
        browser.findElement(By.id("apply-filters")).click();
        ((JavascriptExecutor) browser).executeScript("window.__searchApi.answers = [{status: 409, body: {title: "
                + "'Conflict', detail: '3 executions match, not 2'}, countsAfter: {WAITING: 3, total: 3}}, {status: 200,"
                + " body: {matched: 3, acted: 2, skipped: 1}}]");

        // dismissed: nothing is asked to act
        page.click(By.id("bulk-cancel"));
        Alert first = page.waiting().until(ExpectedConditions.alertIsPresent());
        assertThat(first.getText()).startsWith("Cancel 2 executions (id containing \"contrato-\", created from "
                + "2026-03-01 09:30:00, business keys cliente:42, canal:web)?");
        first.dismiss();
        assertThat(asked()).noneMatch((asked) -> asked.startsWith("POST"));

        page.click(By.id("bulk-cancel"));
        page.waiting().until(ExpectedConditions.alertIsPresent()).accept();
        Alert again = page.waiting().until(ExpectedConditions.alertIsPresent());
        assertThat(again.getText()).startsWith("The filtered set changed meanwhile. Cancel 3 executions");
        again.accept();

        page.waitForText(By.id("message"), "Cancel requested for 2 of 3 executions; 1 skipped");
        // São Paulo's 09:30 is 12:30 UTC
        String filters = "id=contrato-&createdFrom=2026-03-01T12%3A30%3A00.000Z&tag=cliente%3A42&tag=canal%3Aweb";
        assertThat(asked()).filteredOn((asked) -> asked.startsWith("POST"))
            .containsExactly("POST cancel?" + filters + "&expected=2", "POST cancel?" + filters + "&expected=3");
    }

    @Test
    void bulkResumeSaysWhatItDid() {
        openWithCounts("{\"FAILED\":1,\"total\":1}");
        ((JavascriptExecutor) browser).executeScript(
                "window.__searchApi.answers = [{status: 200, body: {matched: 1, acted: 1, skipped: 0}}]");

        page.click(By.id("bulk-resume"));
        Alert confirm = page.waiting().until(ExpectedConditions.alertIsPresent());
        assertThat(confirm.getText()).startsWith("Resume 1 execution (no filter: every execution)?")
            .contains("Only FAILED executions are resumed");
        confirm.accept();

        page.waitForText(By.id("message"), "Resumed 1 of 1 execution");
        assertThat(asked()).filteredOn((asked) -> asked.startsWith("POST")).containsExactly("POST resume?expected=1");
    }

    private void openWithCounts(String counts) {
        page.open("http://localhost:" + this.port + "/skail");
        ((JavascriptExecutor) browser).executeScript("window.__searchApi.counts = " + counts);
        // the page asked before the counts were set: it asks again
        page.click(By.id("refresh-now"));
    }

    @SuppressWarnings("unchecked")
    private static List<String> asked() {
        return (List<String>) ((JavascriptExecutor) browser).executeScript("return window.__searchApi.asked");
    }

    private void start(String function, String taskId, ExecutionStatus status) {
        this.client.trigger(function, taskId, taskId);
        Awaitility.await().atMost(Duration.ofSeconds(20))
            .until(() -> this.client.find(taskId).map((e) -> e.status() == status).orElse(false));
    }
}
