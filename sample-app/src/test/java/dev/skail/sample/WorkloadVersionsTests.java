package dev.skail.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * S12 with real processes on one PostgreSQL: runtimes of vendas:v1.0.0 and vendas:v2.0.0 share the store; each runs
 * only its own version's executions; an execution whose version no runtime serves waits, says which version it waits
 * for, and completes once a runtime of that version starts again.
 */
class WorkloadVersionsTests {

    @TempDir
    Path workDir;

    @Test
    void anExecutionWaitsForARuntimeOfItsOwnVersionAndSaysWhichOne() throws Exception {
        String store = TestPostgres.newDatabase("versions");
        Path v1Dir = Files.createDirectories(this.workDir.resolve("v1"));
        Path v2Dir = Files.createDirectories(this.workDir.resolve("v2"));
        String[] common = { "--skail.store.url=" + store, "--skail.worker.lease-duration=2s",
                "--skail.worker.poll-interval=100ms", "--sample.gateway-failures=0", "--sample.latency=0ms",
                "--sample.prazo-confirmacao=2s" };
        String v1Order = "pedido-v1";
        try (SampleProcess v1 = SampleProcess.start(v1Dir, with(common, "--skail.workload=vendas:v1.0.0"))) {
            assertThat(v1.post("/trigger/vendas/v1.0.0/processarPedido/" + v1Order,
                    "[\"" + UUID.randomUUID() + "\", 150.00]").statusCode()).isEqualTo(202);
            awaitBody(v1, v1Order, "\"status\":\"WAITING\"");
            v1.kill(); // asleep in its delay when its runtime goes away
        }

        try (SampleProcess v2 = SampleProcess.start(v2Dir, with(common, "--skail.workload=vendas:v2.0.0"))) {
            assertThat(v2.post("/trigger/vendas/v2.0.0/processarPedido/pedido-v2",
                    "[\"" + UUID.randomUUID() + "\", 150.00]").statusCode()).isEqualTo(202);
            awaitBody(v2, "pedido-v2", "\"status\":\"COMPLETED\"");
            // v1's delay is long due, and v2 leaves it alone: it waits for a runtime of its own version
            String waiting = awaitBody(v2, v1Order, "\"waitingFor\":\"vendas:v1.0.0\"");
            assertThat(waiting).contains("\"version\":\"v1.0.0\"").doesNotContain("COMPLETED");
            assertThat(v2.get("/api/v1/executions/" + v1Order + "/history").body())
                .doesNotContain("cobrarCartao");

            try (SampleProcess v1Again = SampleProcess.start(v1Dir, with(common, "--skail.workload=vendas:v1.0.0"))) {
                String done = awaitBody(v1Again, v1Order, "\"status\":\"COMPLETED\"");
                assertThat(done).contains("\"waitingFor\":null");
                String history = v1Again.get("/api/v1/executions/" + v1Order + "/history").body();
                // reservarEstoque ran once, before the kill; the rest after the restart of v1
                assertThat(history.split("\"name\":\"reservarEstoque\"", -1)).hasSize(2);
                assertThat(history).contains("\"name\":\"cobrarCartao\"");
            }
        }
    }

    private static String awaitBody(SampleProcess sample, String taskId, String expected) {
        return Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
            .until(() -> sample.get("/api/v1/executions/" + taskId).body(), (body) -> body.contains(expected));
    }

    private static String[] with(String[] common, String... more) {
        String[] all = java.util.Arrays.copyOf(common, common.length + more.length);
        System.arraycopy(more, 0, all, common.length, more.length);
        return all;
    }
}
