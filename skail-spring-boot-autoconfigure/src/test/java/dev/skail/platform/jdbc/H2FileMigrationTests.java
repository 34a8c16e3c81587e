package dev.skail.platform.jdbc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.skail.ExecutionStatus;
import dev.skail.SkailQuery;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.ScheduleRow;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.Suspend;
import dev.skail.platform.Tag;
import dev.skail.platform.TaggedExecution;
import dev.skail.platform.local.H2FileMigration;
import dev.skail.platform.local.LocalStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The history of the earlier embedded store (an H2 file) moved into the store skail keeps itself when the application
 * starts on its directory: every execution reads back exactly as it did, its tags, events and schedules with it, a
 * repeated firing is still recognised, and the H2 file is kept aside.
 */
class H2FileMigrationTests {

    private static final String ORDER = "[{\"itens\":[{\"sku\":\"A-1\",\"preco\":150.00}],"
            + "\"em\":\"2026-12-06T10:15:30-03:00\"}]";

    @TempDir
    Path directory;

    private static ExecutionRow pedido(String taskId, long at, String parent) {
        return new ExecutionRow(taskId, "vendas", "v1", "processarPedido", ORDER, ExecutionStatus.PENDING, null, null,
                1, 0, at, at, at, parent);
    }

    private static StepRow command(String taskId, int position, String result) {
        return new StepRow(taskId, position, StepRow.COMMAND, "cobrarCartao", ORDER, StepRow.COMPLETED, result, null,
                taskId + "-" + position, 1, 1_000 + position, 1_001 + position, null);
    }

    @Test
    void everyExecutionReadsBackAsItDidWithItsTagsEventsAndSchedules() throws Exception {
        Map<String, StoredHistory> histories = new LinkedHashMap<>();
        Map<String, TaggedExecution> tagged = new LinkedHashMap<>();
        List<ExecutionRow> listed;
        Map<ExecutionStatus, Long> counted;
        List<ScheduleRow> schedules;
        try (JdbcExecutionStore h2 = H2TestStore.openFile(this.directory.resolve("skail"), 4)) {
            h2.create(pedido("pedido-1", 10, null), List.of(new Tag("cliente", "C-9"), new Tag("loja", "sp")));
            h2.create(pedido("pedido-2", 20, null), List.of(new Tag("cliente", "C-7")));
            h2.create(pedido("pedido-3", 30, null));
            Lease one = claim(h2, "pedido-1");
            // a declined charge (503 from the payment API), then the charge: one attempt a row, one kept in the step
            h2.recordAttempt(one, new AttemptRow("pedido-1", 0, "cobrarCartao", 1, 1, 150, 160, "FAILED",
                    "{\"type\":\"org.springframework.web.client.HttpServerErrorException\",\"status\":503}", "RETRY",
                    200L), 160, 30_160);
            h2.recordStep(one, command("pedido-1", 0, "{\"valor\":150.00}"), new AttemptRow("pedido-1", 0,
                    "cobrarCartao", 1, 2, 1_000, 1_001, "SUCCEEDED", null, "RECORDED", null), 1_001, 31_001);
            h2.startChild(one, new StepRow("pedido-1", 1, StepRow.CHILD, "emitirNota", "[]", StepRow.PENDING, null,
                    null, "pedido-1-1", 1, 1_100, 0, "pedido-1:1"), pedido("pedido-1:1", 1_100, "pedido-1"),
                    List.of(new Tag("pedido", "pedido-1")), 1_100, 31_100);
            h2.suspend(one, List.of(new StepRow("pedido-1", 2, StepRow.EVENT, "pagamento", "[3600000]",
                    StepRow.PENDING, null, null, "pedido-1-2", 1, 1_200, 0, null)),
                    new Suspend(ExecutionStatus.WAITING, 3_601_200L, Set.of("pagamento"), Set.of("pedido-1:1")),
                    1_200, 1_200);
            h2.fire("pedido-1", "pagamento", "{\"valor\":150.00}", "pix-1", 1_300);
            h2.fire("pedido-2", "cancelamento", null, "pedido-2-cancel", 1_400);
            Lease three = claim(h2, "pedido-3");
            h2.fail(three, "{\"type\":\"java.lang.IllegalStateException\",\"message\":\"estoque\"}", null, 1_500);
            h2.scheduleStore().register(new ScheduleRow("vendas", "fechamento", "fecharCaixa", "v1", "0 0 18 * * *",
                    "America/Sao_Paulo", "LATEST", 5_000L, null, null, 0), 0);
            for (String id : List.of("pedido-1", "pedido-1:1", "pedido-2", "pedido-3")) {
                histories.put(id, h2.history(id).orElseThrow());
                tagged.put(id, h2.findTagged(id).orElseThrow());
            }
            listed = h2.search(SkailQuery.all(), 0, 10);
            counted = h2.countByStatus(SkailQuery.all());
            schedules = h2.scheduleStore().schedules("vendas");
        }

        assertThat(H2FileMigration.migrateIfNeeded(this.directory)).isEqualTo(4);

        LocalStore local = LocalStore.open(this.directory.resolve(LocalStore.FILE_NAME));
        try {
            local.initialize();
            for (String id : histories.keySet()) {
                assertThat(local.history(id)).as(id).contains(histories.get(id));
                assertThat(local.findTagged(id)).as(id).contains(tagged.get(id));
            }
            assertThat(histories.get("pedido-1").attempts()).hasSize(2);
            assertThat(local.search(SkailQuery.all(), 0, 10)).isEqualTo(listed);
            assertThat(local.search(SkailQuery.all().withTag("pedido", "pedido-1"), 0, 10))
                .extracting(ExecutionRow::taskId).containsExactly("pedido-1:1");
            assertThat(local.countByStatus(SkailQuery.all())).isEqualTo(counted);
            assertThat(local.scheduleStore().schedules("vendas")).isEqualTo(schedules);
            // the same firing again is recognised; a new one gets a new id
            assertThat(local.fire("pedido-1", "pagamento", "{\"valor\":150.00}", "pix-1", 2_000))
                .isEqualTo(ExecutionStore.FireOutcome.FIRED);
            assertThat(local.history("pedido-1").orElseThrow().events()).hasSize(1);
            assertThat(local.fire("pedido-1", "pagamento", "{\"valor\":99.90}", "pix-2", 2_100))
                .isEqualTo(ExecutionStore.FireOutcome.FIRED);
            assertThat(local.history("pedido-1").orElseThrow().events()).extracting((event) -> event.id())
                .doesNotHaveDuplicates().hasSize(2);
            // the waiting order was made due by its event, the failed one stays failed
            assertThat(local.claimDue("vendas", "v1", "b", 10, 2_200, 32_200, Set.of())).extracting(Lease::taskId)
                .containsExactlyInAnyOrder("pedido-1", "pedido-1:1", "pedido-2");
        }
        finally {
            local.close();
        }
        assertThat(this.directory.resolve(H2FileMigration.H2_FILE)).doesNotExist();
        assertThat(this.directory.resolve(H2FileMigration.H2_FILE + ".migrated")).exists();
        assertThat(H2FileMigration.migrateIfNeeded(this.directory)).isEqualTo(-1);
        try (var files = Files.list(this.directory)) {
            assertThat(files.map((path) -> path.getFileName().toString())).contains(LocalStore.FILE_NAME,
                    "skail-store.log").noneMatch((name) -> name.contains("migrating"));
        }
    }

    /** The execution claimed alone (the others excluded). */
    private static Lease claim(JdbcExecutionStore store, String taskId) {
        Set<String> others = new java.util.HashSet<>(Set.of("pedido-1", "pedido-2", "pedido-3", "pedido-1:1"));
        others.remove(taskId);
        return store.claimDue("vendas", "v1", "a", 10, 1_000, 30_000_000, others).get(0);
    }
}
