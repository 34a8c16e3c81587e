package dev.skail.sample;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as a user runs it after {@code mvn spring-boot:process-aot}: AOT-processed (this module's build binds
 * {@code process-aot} before the tests, so the generated code is in {@code target/classes}) and started as its own
 * JVM with {@code -Dspring.aot.enabled=true}. The order flow behaves as on the JVM: every command, each called by
 * {@code processarPedido} through {@code this}, is recorded once, and the Monitor and the health are served.
 */
class AotModeTests {

    private static final JsonMapper json = JsonMapper.shared();

    @TempDir
    Path workDir;

    @Test
    void aotProcessedSampleRunsTheOrderFlowAsOnTheJvm() throws Exception {
        assertThat(SampleProcess.class.getClassLoader()
            .getResource("dev/skail/sample/SampleApplication__ApplicationContextInitializer.class"))
            .as("the sample's AOT-generated code: run the tests through Maven, which runs spring-boot:process-aot "
                    + "before them")
            .isNotNull();
        assertThat(SampleProcess.class.getClassLoader().getResource("dev/skail/sample/Pedidos$$SpringCGLIB$$0.class"))
            .as("skail's subclass of Pedidos, generated during AOT processing")
            .isNotNull();
        Path journal = this.workDir.resolve("effects.log");
        try (SampleProcess sample = SampleProcess.start(this.workDir, List.of("-Dspring.aot.enabled=true"),
                "--sample.journal=" + journal, "--sample.latency=0ms", "--sample.gateway-failures=2",
                "--sample.prazo-confirmacao=1s")) {
            assertThat(Files.readString(this.workDir.resolve("console.log")))
                .contains("Starting AOT-processed SampleApplication");

            HttpResponse<String> created = sample.post("/pedidos?espera=60s", "{\"valor\": 149.90}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            JsonNode execution = json.readTree(created.body());
            assertThat(execution.get("status").asString()).isEqualTo("COMPLETED");
            assertThat(execution.get("result").asString()).isEqualTo("CONFIRMADO");
            assertThat(execution.get("arguments").get(1).decimalValue()).isEqualByComparingTo("149.90");
            String taskId = execution.get("taskId").asString();

            JsonNode history = json.readTree(sample.get("/api/v1/executions/" + taskId + "/history").body());
            List<String> steps = new ArrayList<>();
            for (JsonNode step : history.get("steps")) {
                steps.add(step.get("kind").asString() + " " + step.get("name").asString());
            }
            assertThat(steps).containsExactly("COMMAND reservarEstoque", "DELAY delay", "COMMAND cobrarCartao",
                    "COMMAND confirmarPedido");
            // the gateway fails twice: the third attempt of the charge is the one recorded
            assertThat(history.get("steps").get(2).get("attempts")).hasSize(3);
            assertThat(effectCounts(journal)).containsExactlyEntriesOf(new TreeMap<>(Map.of(
                    taskId + " cobrarCartao", 1, taskId + " confirmarPedido", 1, taskId + " reservarEstoque", 1)));

            HttpResponse<String> health = sample.get("/actuator/health");
            assertThat(health.statusCode()).isEqualTo(200);
            JsonNode healthBody = json.readTree(health.body());
            assertThat(healthBody.get("status").asString()).isEqualTo("UP");
            assertThat(healthBody.get("components").get("skail").get("status").asString()).isEqualTo("UP");

            HttpResponse<String> monitor = sample.get("/skail");
            assertThat(monitor.statusCode()).isEqualTo(200);
            assertThat(monitor.body()).contains("monitor.js");
            HttpResponse<String> script = sample.get("/skail/monitor.js");
            assertThat(script.statusCode()).isEqualTo(200);
            assertThat(script.body()).isNotBlank();
        }
    }

    private static Map<String, Integer> effectCounts(Path journal) throws Exception {
        Map<String, Integer> counts = new TreeMap<>();
        for (String line : Files.readAllLines(journal)) {
            counts.merge(line, 1, Integer::sum);
        }
        return counts;
    }
}
