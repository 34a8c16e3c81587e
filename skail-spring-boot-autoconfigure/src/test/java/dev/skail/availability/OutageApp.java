package dev.skail.availability;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.skail.SkailClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** An application of the outage tests, started and stopped by the test, and talked to over HTTP as a user would. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ OutageFlows.class, OutageApp.PedidosController.class })
public class OutageApp {

    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static final JsonMapper JSON = JsonMapper.builder().build();

    static ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(OutageApp.class)
            .properties("server.port=0", "skail.workload=vendas:v1.0.0", "skail.worker.poll-interval=50ms",
                    "skail.worker.lease-duration=3s", "skail.retry.backoff.initial=100ms",
                    "skail.retry.backoff.max=200ms", "skail.store.connection-timeout=1s",
                    "skail.store.request-timeout=2s", "management.endpoints.web.exposure.include=health",
                    "management.endpoint.health.show-details=always", "logging.level.dev.skail=ERROR",
                    "logging.level.com.zaxxer.hikari=OFF")
            .properties(properties)
            .run();
    }

    static String base(ConfigurableApplicationContext context) {
        return "http://localhost:" + ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    static HttpResponse<String> get(ConfigurableApplicationContext context, String path) {
        return send(HttpRequest.newBuilder(URI.create(base(context) + path)).GET());
    }

    static HttpResponse<String> post(ConfigurableApplicationContext context, String path, String json) {
        return send(HttpRequest.newBuilder(URI.create(base(context) + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }

    /** The skail component of {@code /actuator/health}, and how long the answer took. */
    static Health health(ConfigurableApplicationContext context) {
        long start = System.nanoTime();
        HttpResponse<String> response = get(context, "/actuator/health");
        long millis = (System.nanoTime() - start) / 1_000_000;
        return new Health(response.statusCode(), json(response).path("components").path("skail"), millis);
    }

    /** An application's own controller, which triggers through {@link SkailClient}. */
    @RestController
    static class PedidosController {

        private final SkailClient client;

        PedidosController(SkailClient client) {
            this.client = client;
        }

        @PostMapping("/pedidos/{id}")
        ResponseEntity<String> pedido(@PathVariable String id) {
            this.client.trigger("pedido", id, id);
            return ResponseEntity.accepted().body(id);
        }
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * @param httpStatus the status of the health route
     * @param skail the skail component: status and details
     * @param millis how long the answer took
     */
    record Health(int httpStatus, JsonNode skail, long millis) {

        String status() {
            return this.skail.path("status").asString();
        }

        String error() {
            return this.skail.path("details").path("error").asString();
        }
    }
}
