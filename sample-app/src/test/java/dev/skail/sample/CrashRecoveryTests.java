package dev.skail.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A step reported as recorded survives {@code kill -9}: the sample runs as a separate process, is killed with
 * SIGKILL while executions are in flight, and is started again on the same store. No command recorded before the
 * kill runs again, and every execution completes.
 */
class CrashRecoveryTests {

    private static final JsonMapper json = JsonMapper.shared();

    private static final int ORDERS = 16;

    @TempDir
    Path workDir;

    @Test
    void killedProcessResumesEveryExecutionWithoutRunningRecordedCommandsAgain() throws Exception {
        Path journal = this.workDir.resolve("effects.log");
        String[] arguments = { "--sample.journal=" + journal, "--sample.latency=150ms", "--sample.gateway-failures=0",
                "--sample.prazo-confirmacao=0s",
                "--skail.worker.concurrency=4", "--skail.worker.lease-duration=3s" };
        List<String> ids = new ArrayList<>();
        Instant killedAt;
        int recordedBeforeKill;
        try (SampleProcess first = SampleProcess.start(this.workDir, arguments)) {
            for (int i = 0; i < ORDERS; i++) {
                String id = "crash-" + i;
                ids.add(id);
                String body = "[\"" + UUID.randomUUID() + "\", 10.00]";
                assertThat(first.post("/trigger/vendas/v1.0.0/processarPedido/" + id, body).statusCode()).isEqualTo(202);
            }
            // kill once a good part of the work is recorded, while the rest is still to do
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> recordedSteps(first, ids) >= ORDERS);
            first.kill();
            killedAt = Instant.now();
        }
        assertThat(Files.readAllLines(journal)).isNotEmpty();

        try (SampleProcess second = SampleProcess.start(this.workDir, arguments)) {
            Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100))
                .until(() -> completed(second, ids) == ORDERS);

            Map<String, Integer> effects = effectCounts(journal);
            recordedBeforeKill = 0;
            int unfinishedAtKill = 0;
            for (String id : ids) {
                JsonNode history = json.readTree(second.get("/api/v1/executions/" + id + "/history").body());
                assertThat(history.get("execution").get("result").asString()).isEqualTo("CONFIRMADO");
                assertThat(history.get("steps")).hasSize(4);
                boolean unfinished = false;
                for (JsonNode step : history.get("steps")) {
                    if (!"COMMAND".equals(step.get("kind").asString())) {
                        continue;
                    }
                    String effect = id + " " + step.get("name").asString();
                    int runs = effects.getOrDefault(effect, 0);
                    if (Instant.parse(step.get("completedAt").asString()).isBefore(killedAt)) {
                        recordedBeforeKill++;
                        assertThat(runs).as("runs of %s, recorded before the kill", effect).isEqualTo(1);
                    }
                    else {
                        unfinished = true;
                        // at least once: a command cut off before its result was recorded may run again
                        assertThat(runs).as("runs of %s", effect).isBetween(1, 2);
                    }
                }
                if (unfinished) {
                    unfinishedAtKill++;
                }
            }
            assertThat(recordedBeforeKill).isGreaterThanOrEqualTo(ORDERS / 2);
            assertThat(unfinishedAtKill).as("executions cut by the kill").isPositive();
        }
    }

    @Test
    void killedDuringADelayTheExecutionWakesAfterTheRestartWithoutRunningEarlierCommandsAgain() throws Exception {
        Path journal = this.workDir.resolve("effects.log");
        String[] arguments = { "--sample.journal=" + journal, "--sample.latency=0ms", "--sample.gateway-failures=0",
                "--sample.prazo-confirmacao=3s", "--skail.worker.lease-duration=3s" };
        try (SampleProcess first = SampleProcess.start(this.workDir, arguments)) {
            String body = "[\"" + UUID.randomUUID() + "\", 10.00]";
            assertThat(first.post("/trigger/vendas/v1.0.0/processarPedido/sleeper", body).statusCode()).isEqualTo(202);
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> "WAITING".equals(json.readTree(first.get("/api/v1/executions/sleeper").body())
                    .get("status").asString()));
            first.kill();
        }
        assertThat(Files.readAllLines(journal)).containsExactly("sleeper reservarEstoque");

        try (SampleProcess second = SampleProcess.start(this.workDir, arguments)) {
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> completed(second, List.of("sleeper")) == 1);
            assertThat(json.readTree(second.get("/api/v1/executions/sleeper").body()).get("result").asString())
                .isEqualTo("CONFIRMADO");
        }
        assertThat(Files.readAllLines(journal)).containsExactly("sleeper reservarEstoque", "sleeper cobrarCartao",
                "sleeper confirmarPedido");
    }

    private static int recordedSteps(SampleProcess sample, List<String> ids) throws Exception {
        int steps = 0;
        for (String id : ids) {
            steps += json.readTree(sample.get("/api/v1/executions/" + id + "/history").body()).get("steps").size();
        }
        return steps;
    }

    private static int completed(SampleProcess sample, List<String> ids) throws Exception {
        int completed = 0;
        for (String id : ids) {
            JsonNode execution = json.readTree(sample.get("/api/v1/executions/" + id).body());
            if ("COMPLETED".equals(execution.get("status").asString())) {
                completed++;
            }
        }
        return completed;
    }

    private static Map<String, Integer> effectCounts(Path journal) throws Exception {
        Map<String, Integer> counts = new HashMap<>();
        for (String line : Files.readAllLines(journal)) {
            counts.merge(line, 1, Integer::sum);
        }
        return counts;
    }
}
