package dev.skail.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.skail.SkailClient;
import dev.skail.runtime.TestApplication;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with a context path and its own Jackson settings: the API keeps skail's JSON and links, and the
 * Monitor (in headless Chromium) finds its scripts and data under the context path.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1",
                "server.servlet.context-path=/app", "spring.jackson.property-naming-strategy=SNAKE_CASE" })
class MonitorContextPathTests {

    @LocalServerPort
    int port;

    @Autowired
    SkailClient client;

    @Test
    void apiKeepsItsJsonAndLinksUnderTheContextPathAndTheMonitorWorksThere() throws Exception {
        HttpResponse<String> triggered = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://localhost:" + this.port + "/app/trigger/vendas/v1.0.0/processarPedido/ctx-1"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("\"ctx-1\""))
            .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(triggered.statusCode()).isEqualTo(202);
        assertThat(triggered.headers().firstValue("Location")).hasValueSatisfying(
                (location) -> assertThat(location).endsWith("/app/api/v1/executions/ctx-1"));
        JsonNode body = JsonMapper.shared().readTree(triggered.body());
        assertThat(body.has("taskId")).isTrue();
        assertThat(body.has("task_id")).isFalse();

        WebDriver browser = Chromium.start();
        try {
            browser.get("http://localhost:" + this.port + "/app/skail#ctx-1");
            new WebDriverWait(browser, Duration.ofSeconds(15)).ignoring(
                    org.openqa.selenium.StaleElementReferenceException.class)
                .until((driver) -> driver.findElement(By.id("detail-title")).getText().equals("ctx-1")
                        && driver.findElement(By.id("timeline")).getText().contains("reservarEstoque"));
            assertThat(browser.findElement(By.id("workload")).getText()).isEqualTo("vendas:v1.0.0");
        }
        finally {
            browser.quit();
        }
    }
}
