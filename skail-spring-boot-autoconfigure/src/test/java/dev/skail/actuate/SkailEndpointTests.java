package dev.skail.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.runtime.Effects;
import dev.skail.runtime.TestApplication;
import dev.skail.test.SkailAwait;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** The skail actuator endpoint: state, counts, recent failures, and a write operation that resumes. */
@SpringBootTest(classes = TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
                "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms",
                "management.endpoints.web.exposure.include=skail,health" })
class SkailEndpointTests {

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @Autowired
    SkailClient client;

    @Autowired
    Effects effects;

    @Test
    void showsWorkloadWorkerCountsAndRecentFailuresAndResumesAFailedExecution() throws Exception {
        this.effects.breakFor("endpoint-1");
        this.client.trigger("pagarFatura", "endpoint-1", "endpoint-1");
        new SkailAwait(this.client).status("endpoint-1", ExecutionStatus.FAILED);

        JsonNode skail = JsonMapper.shared().readTree(this.http.send(HttpRequest.newBuilder(uri("/actuator/skail"))
            .build(), HttpResponse.BodyHandlers.ofString()).body());

        assertThat(skail.get("workload").asString()).isEqualTo("vendas");
        assertThat(skail.get("version").asString()).isEqualTo("v1.0.0");
        assertThat(skail.get("worker").get("state").asString()).isEqualTo("running");
        assertThat(skail.get("executions").get("FAILED").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(skail.get("recentFailures").toString()).contains("endpoint-1").contains("bank offline");

        this.effects.fix("endpoint-1");
        HttpResponse<String> resumed = this.http.send(HttpRequest.newBuilder(uri("/actuator/skail"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"taskId\": \"endpoint-1\"}"))
            .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(resumed.statusCode()).isEqualTo(200);
        new SkailAwait(this.client).status("endpoint-1", ExecutionStatus.COMPLETED);
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + this.port + path);
    }
}
