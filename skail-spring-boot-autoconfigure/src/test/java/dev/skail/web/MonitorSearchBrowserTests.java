package dev.skail.web;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailQuery;
import dev.skail.search.Pedido;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTestConfiguration;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Monitor's counts, time range, business keys and bulk actions as an operator uses them, in a real headless
 * Chromium (in São Paulo's time zone) against the application's own API and store: orders tagged by their id
 * ({@code @SkailTag("pedido")}) and by their customer ({@code SkailContext.tag("cliente", ...)}). Each test starts
 * with an empty store, so that the counts without filters are its own.
 */
@SpringBootTest(classes = MonitorSearchBrowserTests.App.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1",
                "skail.worker.poll-interval=20ms" })
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_EACH_TEST_METHOD)
class MonitorSearchBrowserTests {

    private static final ZoneId SAO_PAULO = ZoneId.of("America/Sao_Paulo");

    private static WebDriver browser;

    private static MonitorPage page;

    @LocalServerPort
    int port;

    @Autowired
    SkailClient client;

    @Autowired
    SkailAwait await;

    @Autowired
    VirtualClock clock;

    @Autowired
    PedidosDoMonitor pedidos;

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

    @AfterEach
    void noConfirmationLeftOpen() {
        try {
            browser.switchTo().alert().dismiss();
        }
        catch (NoAlertPresentException ex) {
            // none: as expected
        }
    }

    @Test
    void countsAtTheTopAreTheStoresAndAClickOnOneListsThoseExecutions() {
        aguardandoPagamento("pedido-1", "42");
        aguardandoPagamento("pedido-2", "42");
        aguardandoPagamento("pedido-3", "7");
        pago("pedido-4", "7");
        cobrado("cobranca-1", "42");
        this.pedidos.gatewayFora(true);
        recusado("cobranca-2", "42");
        recusado("cobranca-3", "7");

        page.open(base() + "/skail");

        waitForCounts("All\n7", "PENDING\n0", "RUNNING\n0", "WAITING\n3", "COMPLETED\n2", "FAILED\n2", "CANCELLED\n0");
        assertThat(this.client.count(SkailQuery.all())).containsEntry(ExecutionStatus.WAITING, 3L)
            .containsEntry(ExecutionStatus.COMPLETED, 2L)
            .containsEntry(ExecutionStatus.FAILED, 2L);
        waitForListed("cobranca-3", "cobranca-2", "cobranca-1", "pedido-4", "pedido-3", "pedido-2", "pedido-1");

        page.click(count("FAILED"));

        waitForListed("cobranca-3", "cobranca-2");
        assertThat(new Select(browser.findElement(By.id("filter-status"))).getFirstSelectedOption().getText())
            .isEqualTo("FAILED");
        page.waiting().until((driver) -> "true".equals(driver.findElement(count("FAILED")).getAttribute("aria-pressed")));
        // the counts leave the status aside: each still says how many a click on it lists
        waitForCounts("All\n7", "PENDING\n0", "RUNNING\n0", "WAITING\n3", "COMPLETED\n2", "FAILED\n2", "CANCELLED\n0");

        page.click(count("WAITING"));
        waitForListed("pedido-3", "pedido-2", "pedido-1");

        page.click(count(""));
        waitForListed("cobranca-3", "cobranca-2", "cobranca-1", "pedido-4", "pedido-3", "pedido-2", "pedido-1");
        assertThat(new Select(browser.findElement(By.id("filter-status"))).getFirstSelectedOption().getText())
            .isEqualTo("any");
    }

    @Test
    void theCreatedTimeRangeListsTheOrdersCreatedWithinIt() {
        Instant manha = this.clock.instant();
        aguardandoPagamento("pedido-manha", "42");
        this.clock.advance(Duration.ofHours(2));
        aguardandoPagamento("pedido-tarde", "42");
        this.clock.advance(Duration.ofHours(2));
        aguardandoPagamento("pedido-noite", "7");

        page.open(base() + "/skail");
        waitForListed("pedido-noite", "pedido-tarde", "pedido-manha");
        // from an hour after the first order to an hour after the second, in the operator's time (São Paulo)
        setLocalTime("filter-from", manha.plus(Duration.ofHours(1)));
        setLocalTime("filter-to", manha.plus(Duration.ofHours(3)));
        page.click(By.id("apply-filters"));

        waitForListed("pedido-tarde");
        waitForCounts("All\n1", "PENDING\n0", "RUNNING\n0", "WAITING\n1", "COMPLETED\n0", "FAILED\n0", "CANCELLED\n0");

        // from the second order on, no end: the second and the third
        setLocalTime("filter-from", this.client.find("pedido-tarde").orElseThrow().createdAt());
        ((JavascriptExecutor) browser).executeScript("document.getElementById('filter-to').value = ''");
        page.click(By.id("apply-filters"));
        waitForListed("pedido-noite", "pedido-tarde");
        waitForCounts("All\n2", "PENDING\n0", "RUNNING\n0", "WAITING\n2", "COMPLETED\n0", "FAILED\n0", "CANCELLED\n0");
    }

    @Test
    void aBusinessKeyListsOnlyTheExecutionsTaggedWithIt() {
        aguardandoPagamento("pedido-1", "42");
        aguardandoPagamento("pedido-2", "7");
        aguardandoPagamento("pedido-3", "42");
        this.pedidos.gatewayFora(true);
        recusado("cobranca-1", "42");
        recusado("cobranca-2", "421");

        page.open(base() + "/skail");
        waitForListed("cobranca-2", "cobranca-1", "pedido-3", "pedido-2", "pedido-1");
        browser.findElement(By.id("filter-tags")).sendKeys("cliente:42");
        page.click(By.id("apply-filters"));

        waitForListed("cobranca-1", "pedido-3", "pedido-1");
        waitForCounts("All\n3", "PENDING\n0", "RUNNING\n0", "WAITING\n2", "COMPLETED\n0", "FAILED\n1", "CANCELLED\n0");

        // an order's own id, with the customer: that order only
        String pedido3 = this.client.find("pedido-3").orElseThrow().tag("pedido").get(0);
        browser.findElement(By.id("filter-tags")).sendKeys(", pedido:" + pedido3);
        page.click(By.id("apply-filters"));
        waitForListed("pedido-3");
    }

    @Test
    void bulkCancelAsksWithTheCountOfTheFilteredOrdersAndCancelsExactlyThose() {
        aguardandoPagamento("pedido-1", "42");
        aguardandoPagamento("pedido-2", "7");
        aguardandoPagamento("pedido-3", "42");
        pago("pedido-4", "42");

        filterByBusinessKeys("cliente:42");
        waitForListed("pedido-4", "pedido-3", "pedido-1");

        // dismissed: nothing is cancelled
        page.click(By.id("bulk-cancel"));
        Alert first = confirmation();
        assertThat(first.getText()).isEqualTo("Cancel 2 executions that have not ended (business keys cliente:42)? "
                + "Each sees SkailCancelledException at its current step, may compensate, and ends CANCELLED.");
        first.dismiss();
        assertThat(status("pedido-1")).isEqualTo(ExecutionStatus.WAITING);
        assertThat(status("pedido-3")).isEqualTo(ExecutionStatus.WAITING);

        page.click(By.id("bulk-cancel"));
        confirmation().accept();

        page.waitForText(By.id("message"), "Cancel requested for 2 of 2 executions");
        this.await.status("pedido-1", ExecutionStatus.CANCELLED);
        this.await.status("pedido-3", ExecutionStatus.CANCELLED);
        // outside the filters, or ended: untouched
        assertThat(status("pedido-2")).isEqualTo(ExecutionStatus.WAITING);
        assertThat(status("pedido-4")).isEqualTo(ExecutionStatus.COMPLETED);
        waitForCounts("All\n3", "PENDING\n0", "RUNNING\n0", "WAITING\n0", "COMPLETED\n1", "FAILED\n0", "CANCELLED\n2");
        page.waitForText(statusCell("pedido-1"), "CANCELLED");
        page.waitForText(statusCell("pedido-3"), "CANCELLED");
    }

    @Test
    void bulkResumeResumesTheFilteredFailedOrdersOnly() {
        this.pedidos.gatewayFora(true);
        recusado("cobranca-1", "42");
        recusado("cobranca-2", "7");
        recusado("cobranca-3", "42");
        aguardandoPagamento("pedido-1", "42");

        filterByBusinessKeys("cliente:42");
        page.click(count("FAILED"));
        waitForListed("cobranca-3", "cobranca-1");
        // the gateway is back
        this.pedidos.gatewayFora(false);

        page.click(By.id("bulk-resume"));
        Alert confirm = confirmation();
        assertThat(confirm.getText()).isEqualTo("Resume 2 FAILED executions (status FAILED, business keys cliente:42)? "
                + "Commands already recorded do not run again; the failed command and the function start their "
                + "attempts over.");
        confirm.accept();

        page.waitForText(By.id("message"), "Resumed 2 of 2 executions");
        assertThat(this.await.status("cobranca-1", ExecutionStatus.COMPLETED).result(String.class))
            .isEqualTo("APROVADO 99.90");
        assertThat(this.await.status("cobranca-3", ExecutionStatus.COMPLETED).result(String.class))
            .isEqualTo("APROVADO 99.90");
        assertThat(status("cobranca-2")).isEqualTo(ExecutionStatus.FAILED);
        assertThat(status("pedido-1")).isEqualTo(ExecutionStatus.WAITING);
        // the list (FAILED of cliente 42) has none left
        waitForListed();
        page.waitForText(By.id("no-executions"), "No execution matches the filters.");
        waitForCounts("All\n3", "PENDING\n0", "RUNNING\n0", "WAITING\n1", "COMPLETED\n2", "FAILED\n0", "CANCELLED\n0");
    }

    @Test
    void anOrderThatAppearsWhileTheOperatorConfirmsIsCountedAndTheOperatorAskedAgain() {
        aguardandoPagamento("pedido-1", "42");
        aguardandoPagamento("pedido-2", "42");
        aguardandoPagamento("pedido-3", "7");

        filterByBusinessKeys("cliente:42");
        waitForListed("pedido-2", "pedido-1");
        page.click(By.id("bulk-cancel"));
        Alert first = confirmation();
        assertThat(first.getText()).startsWith("Cancel 2 executions that have not ended (business keys cliente:42)?");

        // while the operator reads the question, another order of the customer comes in
        aguardandoPagamento("pedido-4", "42");
        first.accept();

        Alert again = confirmation();
        assertThat(again.getText()).isEqualTo("The filtered set changed meanwhile. Cancel 3 executions that have not "
                + "ended (business keys cliente:42)? Each sees SkailCancelledException at its current step, may "
                + "compensate, and ends CANCELLED.");
        // nothing was cancelled with the stale count
        assertThat(status("pedido-1")).isEqualTo(ExecutionStatus.WAITING);
        again.accept();

        page.waitForText(By.id("message"), "Cancel requested for 3 of 3 executions");
        for (String taskId : List.of("pedido-1", "pedido-2", "pedido-4")) {
            this.await.status(taskId, ExecutionStatus.CANCELLED);
        }
        assertThat(status("pedido-3")).isEqualTo(ExecutionStatus.WAITING);
        waitForListed("pedido-4", "pedido-2", "pedido-1");
    }

    // ---- the orders ----

    /** An order that reserved its stock and waits for its payment. */
    private void aguardandoPagamento(String taskId, String cliente) {
        UUID id = UUID.randomUUID();
        this.client.trigger("processarPedido", taskId, id, pedido(id, cliente, "150.00"));
        this.await.status(taskId, ExecutionStatus.WAITING);
    }

    /** An order paid by PIX: COMPLETED. */
    private void pago(String taskId, String cliente) {
        aguardandoPagamento(taskId, cliente);
        this.client.fire(taskId, "pagamento", "PIX");
        this.await.status(taskId, ExecutionStatus.COMPLETED);
    }

    /** An order charged while the gateway is up: COMPLETED. */
    private void cobrado(String taskId, String cliente) {
        UUID id = UUID.randomUUID();
        this.client.trigger("cobrarPedido", taskId, id, pedido(id, cliente, "99.90"));
        this.await.status(taskId, ExecutionStatus.COMPLETED);
    }

    /** An order charged while the gateway is down: FAILED. */
    private void recusado(String taskId, String cliente) {
        UUID id = UUID.randomUUID();
        this.client.trigger("cobrarPedido", taskId, id, pedido(id, cliente, "99.90"));
        this.await.status(taskId, ExecutionStatus.FAILED);
    }

    private static Pedido pedido(UUID id, String cliente, String valor) {
        return new Pedido(id, cliente, new BigDecimal(valor), OffsetDateTime.parse("2026-03-02T10:15:00-03:00"),
                List.of(new Pedido.Item("SKU-CAFE-500G", 2, new BigDecimal(valor).divide(BigDecimal.valueOf(2)))));
    }

    private ExecutionStatus status(String taskId) {
        return this.client.find(taskId).orElseThrow().status();
    }

    // ---- the page ----

    private void filterByBusinessKeys(String tags) {
        page.open(base() + "/skail");
        browser.findElement(By.id("filter-tags")).sendKeys(tags);
        page.click(By.id("apply-filters"));
    }

    /** Waits until the list shows exactly these executions, in this order (newest first). */
    private static void waitForListed(String... taskIds) {
        List<String> expected = List.of(taskIds);
        page.waiting().withMessage(() -> "the list to show " + expected).until((driver) -> expected
            .equals(driver.findElements(By.cssSelector("#executions tbody tr")).stream()
                .map((row) -> row.getAttribute("data-task-id"))
                .toList()));
    }

    /** Waits until the counts bar reads these buttons, e.g. {@code "All\n7"}, {@code "FAILED\n2"}. */
    private static void waitForCounts(String... counts) {
        List<String> expected = List.of(counts);
        page.waiting().withMessage(() -> "the counts to read " + expected).until((driver) -> expected
            .equals(driver.findElements(By.cssSelector("#counts button")).stream().map(WebElement::getText).toList()));
    }

    private static By count(String status) {
        return By.cssSelector("#counts button[data-status='" + status + "']");
    }

    private static By statusCell(String taskId) {
        return By.cssSelector("#executions tbody tr[data-task-id='" + taskId + "'] td:nth-child(3)");
    }

    private static Alert confirmation() {
        return page.waiting().until(ExpectedConditions.alertIsPresent());
    }

    /** Types a time into a datetime-local field as the operator's clock (São Paulo) reads it. */
    private static void setLocalTime(String field, Instant instant) {
        String local = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss").format(instant.atZone(SAO_PAULO));
        ((JavascriptExecutor) browser).executeScript("arguments[0].value = arguments[1]",
                browser.findElement(By.id(field)), local);
    }

    private String base() {
        return "http://localhost:" + this.port;
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ PedidosDoMonitor.class, SkailTestConfiguration.class })
    static class App {

    }
}
