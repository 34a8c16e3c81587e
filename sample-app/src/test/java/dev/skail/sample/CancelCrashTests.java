package dev.skail.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cancellation survives {@code kill -9} during the compensation: the sample runs as a separate process, a waiting
 * execution is cancelled, the process is killed with SIGKILL while the second compensation command runs, and is
 * started again on the same store. The replay throws the cancellation at the same recorded step, the compensation
 * recorded before the kill does not run again, the rest runs, and the execution ends CANCELLED.
 */
class CancelCrashTests {

    private static final JsonMapper json = JsonMapper.shared();

    @TempDir
    Path workDir;

    @Test
    void killedDuringTheCompensationTheReplayFinishesItAndTheExecutionEndsCancelled() throws Exception {
        Path journal = this.workDir.resolve("effects.log");
        String[] arguments = { "--sample.journal=" + journal, "--sample.latency=1500ms",
                "--skail.worker.lease-duration=3s" };
        try (SampleProcess first = SampleProcess.start(this.workDir, arguments)) {
            assertThat(first.post("/trigger/vendas/v1.0.0/aguardarColeta/coleta-1", "[\"" + UUID.randomUUID() + "\"]")
                .statusCode()).isEqualTo(202);
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> "WAITING".equals(status(first)));

            assertThat(first.post("/api/v1/executions/coleta-1/cancel", "").statusCode()).isEqualTo(202);

            // the first compensation step is recorded; the second (1.5 s long) is running: kill now
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                .until(() -> stepNames(first).contains("estornarFrete"));
            first.kill();
        }
        List<String> beforeRestart = Files.readAllLines(journal);
        assertThat(beforeRestart).containsExactly("coleta-1 reservarVeiculo", "coleta-1 estornarFrete");

        try (SampleProcess second = SampleProcess.start(this.workDir, arguments)) {
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> "CANCELLED".equals(status(second)));
            JsonNode history = json.readTree(second.get("/api/v1/executions/coleta-1/history").body());
            List<String> steps = new ArrayList<>();
            history.get("steps").forEach((step) -> steps.add(step.get("kind").asString() + " "
                    + step.get("name").asString()));
            assertThat(steps).containsExactly("COMMAND reservarVeiculo", "CANCEL cancel", "COMMAND estornarFrete",
                    "COMMAND liberarVeiculo", "COMMAND avisarCliente");
            assertThat(history.get("execution").get("error").get("type").asString())
                .isEqualTo("dev.skail.SkailCancelledException");
            assertThat(second.post("/api/v1/executions/coleta-1/cancel", "").statusCode()).isEqualTo(409);
        }
        // recorded before the kill: never again; cut by the kill: at least once
        List<String> effects = Files.readAllLines(journal);
        assertThat(effects).filteredOn("coleta-1 reservarVeiculo"::equals).hasSize(1);
        assertThat(effects).filteredOn("coleta-1 estornarFrete"::equals).hasSize(1);
        assertThat(effects).filteredOn("coleta-1 liberarVeiculo"::equals).hasSizeBetween(1, 2);
        assertThat(effects).filteredOn("coleta-1 avisarCliente"::equals).hasSize(1);
    }

    private static String status(SampleProcess sample) throws Exception {
        return json.readTree(sample.get("/api/v1/executions/coleta-1").body()).get("status").asString();
    }

    private static List<String> stepNames(SampleProcess sample) throws Exception {
        List<String> names = new ArrayList<>();
        json.readTree(sample.get("/api/v1/executions/coleta-1/history").body()).get("steps")
            .forEach((step) -> names.add(step.get("name").asString()));
        return names;
    }
}
