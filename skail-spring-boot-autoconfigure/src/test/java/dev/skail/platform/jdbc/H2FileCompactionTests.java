package dev.skail.platform.jdbc;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.Tag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The embedded store's file does not grow without bound: executions that ended and were deleted leave room that the
 * next ones use, and the steps of those still running are rewritten out of mostly dead chunks.
 */
class H2FileCompactionTests {

    private static final int EXECUTIONS_PER_ROUND = 300;

    private static final int STEPS = 8;

    @TempDir
    Path directory;

    private JdbcExecutionStore store;

    @AfterEach
    void close() throws Exception {
        if (this.store != null) {
            this.store.close();
        }
    }

    @Test
    void aStoreWhoseEndedExecutionsAreDeletedKeepsItsFileTheSameSizeRoundAfterRound() throws Exception {
        openStore();
        H2Housekeeping housekeeping = ((H2JdbcCustomization) this.store.customization()).housekeeping();
        assertThat(housekeeping).as("the file is compacted while the store runs").isNotNull();
        Path file = this.directory.resolve("skail.mv.db");

        List<Long> sizes = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            runOrders(round);
            // what the retention of ended executions does: every ended execution deleted, with its steps
            int deleted;
            int total = 0;
            do {
                deleted = this.store.deleteEndedBefore(Long.MAX_VALUE, 1_000);
                total += deleted;
            }
            while (deleted > 0);
            assertThat(total).isEqualTo(EXECUTIONS_PER_ROUND - EXECUTIONS_PER_ROUND / 10);
            // rounds of the housekeeping after the deletion until the chunks it emptied are past H2's retention, and
            // two more
            long seen = housekeeping.rounds();
            long rounds = 2 + H2JdbcCustomization.RETENTION_MILLIS / H2Housekeeping.PERIOD_MILLIS;
            await().atMost(Duration.ofSeconds(30)).until(() -> housekeeping.rounds() >= seen + rounds);
            sizes.add(Files.size(file));
        }
        // without compaction and with H2's 45 s retention, each round added ~25 MB of chunks to the file (48 MB after
        // the second, 122 MB after the fifth); compacted, it grows with the running executions' steps, and with
        // chunks up to half dead (the compaction starts below half live)
        assertThat(sizes.get(4)).as("the file's size after each round: %s", sizes)
            .isLessThan(2 * sizes.get(1));
        // H2 wrote its later chunks over the space of dead ones: the file forced what was not forced yet before each
        // such write that found something unforced (at least the header H2 writes after a chunk put in a hole), and
        // the store counts those forces besides its syncs
        JdbcExecutionStore.Syncs syncs = this.store.syncs().orElseThrow();
        assertThat(syncs.barrierForces()).as("forces before space was written over, with %s", syncs).isPositive();
    }

    private void openStore() {
        this.store = H2TestStore.openFile(this.directory.resolve("skail"), 10);
    }

    /**
     * Orders of four threads, each created, claimed, given its steps (an amount, a time with an offset), and ended but
     * one in ten.
     */
    private void runOrders(int round) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                done.add(threads.submit(() -> {
                    for (int i = thread; i < EXECUTIONS_PER_ROUND; i += 4) {
                        runOrder("pedido-" + round + "-" + i, i);
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        }
        finally {
            threads.shutdownNow();
        }
    }

    private void runOrder(String taskId, int i) {
        BigDecimal amount = new BigDecimal("1500.10").add(BigDecimal.valueOf(i, 2));
        OffsetDateTime at = OffsetDateTime.of(2026, 12, 3, 10, 15, 30, 0, ZoneOffset.ofHours(-3)).plusMinutes(i);
        String order = "{\"itens\":[" + "{\"sku\":\"A-1\",\"quantidade\":2,\"preco\":150.00},".repeat(6)
                + "{\"sku\":\"B-2\",\"quantidade\":1,\"preco\":0.10}],\"total\":" + amount.toPlainString()
                + ",\"em\":\"" + at + "\"}";
        ExecutionRow execution = new ExecutionRow(taskId, "vendas", "v1", "processarPedido", "[" + order + "]",
                ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null);
        Lease lease = new Lease(taskId, "test", "token-" + taskId);
        assertThat(this.store.createClaimed(execution, List.of(new Tag("cliente", "c-" + (i % 7))), lease,
                600_000_000L).claimed()).isTrue();
        for (int position = 0; position < STEPS; position++) {
            this.store.recordStep(lease, new StepRow(taskId, position, StepRow.COMMAND, "cobrarCartao",
                    "[{\"valor\":" + amount.toPlainString() + ",\"moeda\":\"BRL\"}]", StepRow.COMPLETED,
                    "{\"cobranca\":\"ch-" + taskId + "-" + position + "\",\"em\":\"" + at + "\"}", null,
                    "key-" + taskId + "-" + position, 1, 2_000, 2_001, null), null, 2_001, 600_000_000L);
        }
        if (i % 10 != 0) {
            // one in ten stays running: its steps stay, in chunks that the others' deletion leaves mostly dead
            this.store.complete(lease, "{\"total\":" + amount.toPlainString() + "}", 2_002);
        }
    }
}
