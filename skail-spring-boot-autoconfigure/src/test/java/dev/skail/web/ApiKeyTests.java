package dev.skail.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import dev.skail.runtime.TestApplication;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** With skail.http.api-key set, every skail route demands the key. */
@SpringBootTest(classes = TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.http.api-key=s3cret" })
class ApiKeyTests {

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @Test
    void routesAnswer401WithoutTheKeyAndServeWithIt() throws Exception {
        assertThat(send("/trigger/vendas/v1.0.0/processarPedido/key-1", null).statusCode()).isEqualTo(401);
        assertThat(send("/trigger/vendas/v1.0.0/processarPedido/key-1", "wrong").statusCode()).isEqualTo(401);
        assertThat(send("/api/v1/executions/key-1", null).statusCode()).isEqualTo(401);

        assertThat(send("/api/v1/executions/counts", null).statusCode()).isEqualTo(401);
        assertThat(send("/api/v1/executions/cancel?expected=0", null).statusCode()).isEqualTo(401);
        assertThat(send("/api/v1/executions/resume?expected=0", "wrong").statusCode()).isEqualTo(401);

        assertThat(send("/trigger/vendas/v1.0.0/processarPedido/key-1", "s3cret").statusCode()).isEqualTo(202);
        assertThat(send("/api/v1/executions/key-1", "s3cret").statusCode()).isEqualTo(200);
        assertThat(send("/api/v1/executions/counts", "s3cret").statusCode()).isEqualTo(200);
        assertThat(send("/api/v1/executions/resume?expected=0", "s3cret").statusCode()).isEqualTo(200);
    }

    @Test
    void monitorAndItsDataDemandTheKeyAndAcceptItAsBasicAuthentication() throws Exception {
        for (String path : new String[] { "/skail", "/skail/monitor.js", "/skail/monitor.css", "/api/v1/executions",
                "/api/v1/executions/counts", "/api/v1/schedules" }) {
            HttpResponse<String> refused = send(path, null);
            assertThat(refused.statusCode()).as(path).isEqualTo(401);
            assertThat(refused.headers().firstValue("WWW-Authenticate")).as(path).hasValueSatisfying(
                    (value) -> assertThat(value).startsWith("Basic"));
            HttpResponse<String> wrong = this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port
                    + path)).header("Authorization", basic("wrong")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(wrong.statusCode()).as(path).isEqualTo(401);
            HttpResponse<String> accepted = this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:"
                    + this.port + path)).header("Authorization", basic("s3cret")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(accepted.statusCode()).as(path).isEqualTo(200);
        }
    }

    private static String basic(String password) {
        return "Basic " + java.util.Base64.getEncoder()
            .encodeToString(("monitor:" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private HttpResponse<String> send(String path, String key) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path));
        if (key != null) {
            request.header(SkailApiController.API_KEY_HEADER, key);
        }
        if (path.startsWith("/trigger")) {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("\"key-1\""));
        }
        else if (path.contains("/cancel?") || path.contains("/resume?")) {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.noBody());
        }
        return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
