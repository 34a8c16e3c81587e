package dev.skail.platform.local;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.skail.ExecutionStatus;
import dev.skail.SkailQuery;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.ScheduleRow;
import dev.skail.platform.ScheduleStore;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreStatementException;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.Suspend;
import dev.skail.platform.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The store skail keeps itself: what is particular to it (a failed write undone whole, a file opened again with
 * everything acknowledged and its indexes agreeing, group commit counted). The rules it shares with the JDBC store are
 * held by the runtime's suites run on it ({@code EngineOnLocalStoreTests}, {@code -Dskail.test.store=local}).
 */
class LocalStoreTests {

    private static final String ORDER = "[{\"itens\":[{\"sku\":\"A-1\",\"preco\":150.00}],"
            + "\"em\":\"2026-12-06T10:15:30-03:00\"}]";

    @TempDir
    Path directory;

    private final List<LocalStore> opened = new ArrayList<>();

    @AfterEach
    void close() {
        this.opened.forEach(LocalStore::close);
    }

    private LocalStore open() {
        LocalStore store = LocalStore.open(this.directory.resolve(LocalStore.FILE_NAME));
        store.initialize();
        this.opened.add(store);
        return store;
    }

    private static ExecutionRow pedido(String taskId, long dueAt) {
        return new ExecutionRow(taskId, "vendas", "v1", "processarPedido", ORDER, ExecutionStatus.PENDING, null, null, 1,
                0, dueAt, dueAt, dueAt, null);
    }

    private static StepRow command(String taskId, int position, String name, String result) {
        return new StepRow(taskId, position, StepRow.COMMAND, name, ORDER, StepRow.COMPLETED, result, null,
                taskId + "-" + position, 1, 1_000 + position, 1_001 + position, null);
    }

    @Test
    void aWriteThatFailsHalfWayLeavesNothingOfItself() {
        LocalStore store = open();
        store.create(pedido("pedido-1", 0));
        Lease lease = store.claimDue("vendas", "v1", "a", 1, 100, 30_100, Set.of()).get(0);
        store.recordStep(lease, command("pedido-1", 1, "cobrarCartao", "{\"valor\":150.00}"), null, 200, 30_200);

        // step 0 is new, step 1 differs from the one recorded: the write is refused whole
        assertThatExceptionOfType(StoreStatementException.class).isThrownBy(() -> store.recordSteps(lease,
                List.of(command("pedido-1", 0, "reservarEstoque", "\"ok\""),
                        command("pedido-1", 1, "cobrarCartao", "{\"valor\":99.90}")),
                null, 300, 30_300));

        assertThat(store.history("pedido-1").orElseThrow().steps()).extracting(StepRow::position).containsExactly(1);
        assertThat(store.inconsistencies()).isEmpty();
    }

    @Test
    void aRunnerThatLostItsLeaseWritesNothing() {
        LocalStore store = open();
        store.create(pedido("pedido-1", 0));
        Lease first = store.claimDue("vendas", "v1", "a", 1, 100, 200, Set.of()).get(0);
        Lease second = store.claimDue("vendas", "v1", "b", 1, 300, 30_300, Set.of()).get(0);

        assertThatExceptionOfType(LeaseLostException.class)
            .isThrownBy(() -> store.recordStep(first, command("pedido-1", 0, "reservarEstoque", "\"ok\""), null, 400,
                    30_400));
        assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> store.complete(first, "\"fim\"", 400));

        assertThat(second.taskId()).isEqualTo("pedido-1");
        assertThat(store.history("pedido-1").orElseThrow().steps()).isEmpty();
        assertThat(store.find("pedido-1").orElseThrow().status()).isEqualTo(ExecutionStatus.RUNNING);
    }

    @Test
    void everythingAcknowledgedIsThereWhenTheFileIsOpenedAgainWithItsIndexesAgreeing() {
        LocalStore store = open();
        store.create(pedido("pedido-1", 0), List.of(new Tag("cliente", "C-9"), new Tag("loja", "sp")));
        store.create(pedido("pedido-2", 10), List.of(new Tag("cliente", "C-7")));
        Lease lease = store.claimDue("vendas", "v1", "a", 1, 100, 30_100, Set.of()).get(0);
        AttemptRow declined = new AttemptRow("pedido-1", 0, "cobrarCartao", 1, 1, 150, 160, "FAILED",
                "{\"type\":\"org.springframework.web.client.HttpServerErrorException\",\"status\":503}", "RETRY", 200L);
        store.recordAttempt(lease, declined, 160, 30_160);
        store.recordStep(lease, command("pedido-1", 0, "cobrarCartao", "{\"valor\":150.00}"), null, 400, 30_400);
        store.suspend(lease, List.of(new StepRow("pedido-1", 1, StepRow.EVENT, "pagamento", "[3600000]",
                StepRow.PENDING, null, null, "pedido-1-1", 1, 500, 0, null)),
                new Suspend(ExecutionStatus.WAITING, 3_600_500L, Set.of("pagamento"), Set.of()), 500, 500);
        assertThat(store.fire("pedido-1", "pagamento", "{\"valor\":150.00}", "pix-1", 600))
            .isEqualTo(ExecutionStore.FireOutcome.FIRED);
        StoredHistory before = store.history("pedido-1").orElseThrow();
        store.close();

        LocalStore reopened = open();

        assertThat(reopened.history("pedido-1")).contains(before);
        assertThat(before.attempts()).contains(declined);
        assertThat(before.events()).singleElement().satisfies((event) -> assertThat(event.payload())
            .isEqualTo("{\"valor\":150.00}"));
        assertThat(reopened.findTagged("pedido-1").orElseThrow().tags()).containsExactly(new Tag("cliente", "C-9"),
                new Tag("loja", "sp"));
        assertThat(reopened.search(SkailQuery.all().withTag("cliente", "C-7"), 0, 10)).extracting(ExecutionRow::taskId)
            .containsExactly("pedido-2");
        assertThat(reopened.search(SkailQuery.all(), 0, 10)).extracting(ExecutionRow::taskId)
            .containsExactly("pedido-2", "pedido-1");
        assertThat(reopened.countByStatus(SkailQuery.all())).containsEntry(ExecutionStatus.WAITING, 1L)
            .containsEntry(ExecutionStatus.PENDING, 1L);
        // the event made the waiting order due at once
        assertThat(reopened.claimDue("vendas", "v1", "b", 10, 700, 30_700, Set.of())).extracting(Lease::taskId)
            .containsExactlyInAnyOrder("pedido-1", "pedido-2");
        assertThat(reopened.inconsistencies()).isEmpty();
    }

    @Test
    void anExecutionLeftRunningByAProcessThatEndedIsDueAtOnceWhenTheFileIsOpenedAgain() {
        LocalStore store = open();
        store.createClaimed(pedido("pedido-1", 0), List.of(), new Lease("pedido-1", "gone", "token-1"), 10_000_000);
        store.close();

        LocalStore reopened = open();

        assertThat(reopened.claimDue("vendas", "v1", "b", 10, 100, 30_100, Set.of())).extracting(Lease::taskId)
            .containsExactly("pedido-1");
    }

    @Test
    void eachDurableWriteWaitsForAForceAndWritesThatWaitTogetherShareOne() throws Exception {
        LocalStore store = open();
        LocalStore.Syncs before = store.syncs();
        ExecutorService threads = Executors.newFixedThreadPool(16);
        List<Future<?>> writes = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            int thread = t;
            writes.add(threads.submit(() -> {
                for (int i = 0; i < 50; i++) {
                    store.create(pedido("pedido-" + thread + "-" + i, i));
                }
            }));
        }
        for (Future<?> write : writes) {
            write.get(60, TimeUnit.SECONDS);
        }
        threads.shutdown();
        store.claimDue("vendas", "v1", "a", 100, 100, 30_100, Set.of());
        LocalStore.Syncs after = store.syncs();

        // every create waited for a force; the claim, which acknowledges nothing, did not
        assertThat(after.durableWrites() - before.durableWrites()).isEqualTo(800);
        assertThat(after.forces() - before.forces()).isBetween(1L, 800L);
        assertThat(store.search(SkailQuery.all(), 0, 1_000)).hasSize(800);
    }

    @Test
    void runtimesClaimingAtOnceTakeEachDueExecutionOnce() throws Exception {
        LocalStore store = open();
        for (int i = 0; i < 500; i++) {
            store.create(pedido("pedido-" + i, i));
        }
        ExecutorService threads = Executors.newFixedThreadPool(4);
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(4);
        List<Future<List<String>>> claims = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            String owner = "instancia-" + t;
            claims.add(threads.submit(() -> {
                List<String> taken = new ArrayList<>();
                // the four start together, each with a first claim of its own
                start.await(30, TimeUnit.SECONDS);
                for (List<Lease> batch = store.claimDue("vendas", "v1", owner, 7, 1_000, 31_000, Set.of());
                        !batch.isEmpty(); batch = store.claimDue("vendas", "v1", owner, 7, 1_000, 31_000, Set.of())) {
                    batch.forEach((lease) -> taken.add(lease.taskId()));
                }
                return taken;
            }));
        }
        List<String> all = new ArrayList<>();
        try {
            for (Future<List<String>> claim : claims) {
                all.addAll(claim.get(60, TimeUnit.SECONDS));
            }
        }
        finally {
            threads.shutdownNow();
        }

        // S14: one runner at a time; every due execution taken, none twice
        assertThat(all).hasSize(500).doesNotHaveDuplicates();
        assertThat(store.countByStatus(SkailQuery.all())).containsEntry(ExecutionStatus.RUNNING, 500L);
    }

    @Test
    void aClaimHandsOverWakeUpsAndExpiredLeasesBesideABacklogInTheOrderTheyFellDue() {
        LocalStore store = open();
        store.create(pedido("waiting", 0));
        store.create(pedido("abandoned", 0));
        List<Lease> leases = store.claimDue("vendas", "v1", "a", 10, 10, 60, Set.of());
        Lease waiting = leases.stream().filter((lease) -> lease.taskId().equals("waiting")).findFirst().orElseThrow();
        store.suspend(waiting, new Suspend(ExecutionStatus.WAITING, 50L, Set.of(), Set.of()), 20);
        for (int i = 9; i >= 1; i--) {
            store.create(pedido("new-" + i, 10 - i));
        }

        List<String> claimed = new ArrayList<>();
        for (int poll = 0; poll < 4; poll++) {
            store.claimDue("vendas", "v1", "b", 1, 100, 30_100, Set.of("new-9"))
                .forEach((lease) -> claimed.add(lease.taskId()));
        }

        // one a poll, the kind that goes first rotating from claim to claim (the setup's claim was the first): each
        // kind gets its turn; new-9 (due first) is run by the claimer already
        assertThat(claimed).containsExactly("abandoned", "waiting", "new-8", "new-7");
        assertThat(store.claimDue("vendas", "v2", "b", 10, 100, 30_100, Set.of())).isEmpty();
    }

    @Test
    void aScheduleTickStartsItsExecutionOnceAndANamedStoreInMemoryOutlivesItsClose() {
        LocalStore store = LocalStore.inMemory("schedules-" + System.nanoTime());
        ScheduleStore schedules = store.scheduleStore();
        ScheduleRow declared = schedules.register(new ScheduleRow("vendas", "fechamento", "fecharCaixa", "v1",
                "0 0 18 * * *", "America/Sao_Paulo", "LATEST", 1_000L, null, null, 0), 0);
        ExecutionRow tick = new ExecutionRow("fechamento:1000", "vendas", "v1", "fecharCaixa", "[]",
                ExecutionStatus.PENDING, null, null, 1, 0, 1_000L, 1_000, 1_000, null);

        assertThat(schedules.fire(declared, 1_000, 2_000L, tick, 1_000)).isTrue();
        assertThat(schedules.fire(declared, 1_000, 2_000L, tick, 1_001)).isFalse();
        store.close();

        assertThat(schedules.schedules("vendas")).singleElement()
            .satisfies((row) -> assertThat(row.nextTick()).isEqualTo(2_000L));
        assertThat(store.find("fechamento:1000")).isPresent();
        assertThat(store.inconsistencies()).isEmpty();
    }

    @Test
    void theStoreIsItsMapsFileAndItsLogAndNotAnSqlDatabase() throws Exception {
        open().create(pedido("pedido-1", 0));

        try (var files = Files.list(this.directory)) {
            assertThat(files).extracting((path) -> path.getFileName().toString())
                .containsExactlyInAnyOrder(LocalStore.FILE_NAME, "skail-store.log");
        }
    }

    @Test
    void aDurableWriteWaitsForItsRecordInTheLogToBeForcedNotForTheMapsToBeStored() {
        LocalStore store = open();
        LocalStore.Syncs before = store.syncs();

        for (int i = 0; i < 20; i++) {
            store.create(pedido("pedido-" + i, i));
        }

        // one writer: a force of the log per write; no chunk of the maps stored meanwhile (once a second at most)
        LocalStore.Syncs after = store.syncs();
        assertThat(after.durableWrites() - before.durableWrites()).isEqualTo(20);
        assertThat(after.forces() - before.forces()).isEqualTo(20);
    }
}
