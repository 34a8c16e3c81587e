package dev.skail.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the quickstart promises about {@code /actuator/health} with Boot's default settings (no
 * {@code management.*} property): the overall status includes skail but lists no components, and the health group
 * {@code skail-runtime} answers skail's own status.
 */
@SpringBootTest(classes = HealthDefaultsTests.HealthApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1" })
class HealthDefaultsTests {

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @Test
    void overallHealthIsUpWithoutComponentsByDefault() throws Exception {
        HttpResponse<String> response = get("/actuator/health");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":\"UP\"").doesNotContain("\"components\"");
        // a component is not reachable by name either, without management.endpoint.health.show-components
        assertThat(get("/actuator/health/skail").statusCode()).isEqualTo(404);
    }

    @Test
    void skailHealthGroupAnswersSkailsStatusByDefault() throws Exception {
        HttpResponse<String> response = get("/actuator/health/skail-runtime");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":\"UP\"").doesNotContain("\"components\"");
    }

    private HttpResponse<String> get(String path) throws Exception {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class HealthApp {

    }
}
