package dev.skail.platform.local;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.Suspend;
import dev.skail.platform.Tag;

/**
 * The process {@link KilledLocalStoreTests} kills: threads that trigger orders, claim them, record a step, and put
 * one in three to sleep and end one in three, printing each order's id once its step is acknowledged.
 */
public final class LocalStoreWriter {

    private LocalStoreWriter() {
    }

    public static void main(String[] args) {
        LocalStore store = LocalStore.open(Path.of(args[0]));
        store.initialize();
        int first = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        for (int t = 0; t < threads; t++) {
            int thread = t;
            new Thread(() -> write(store, first + thread * 100_000, thread), "writer-" + t).start();
        }
    }

    private static void write(LocalStore store, int first, int thread) {
        String document = "{\"itens\":[" + "{\"sku\":\"A-1\",\"quantidade\":2,\"preco\":150.00},".repeat(40)
                + "{\"sku\":\"B-2\",\"quantidade\":1,\"preco\":0.10}],\"em\":\"2026-12-02T10:15:30-03:00\"}";
        for (int i = first; i < first + 100_000; i++) {
            String taskId = "pedido-" + i;
            store.create(new ExecutionRow(taskId, "vendas", "v1", "processarPedido", "[" + document + "]",
                    ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null),
                    List.of(new Tag("cliente", "c-" + (i % 7)), new Tag("loja", "sp")));
            // a claim takes any due order, another thread's or one a killed process left: each records the step of
            // what it claimed (the same step again for one recorded before, which the store takes as a retry)
            Lease lease = store.claimDue("vendas", "v1", "writer-" + thread, 1, 1_000 + i, 600_000_000L, Set.of())
                .stream()
                .findFirst()
                .orElse(null);
            if (lease == null) {
                continue;
            }
            String claimed = lease.taskId();
            store.recordStep(lease, new StepRow(claimed, 0, StepRow.COMMAND, "cobrarCartao",
                    "[{\"valor\":150.00,\"moeda\":\"BRL\"}]", StepRow.COMPLETED,
                    "{\"cobranca\":\"ch-" + claimed + "\",\"total\":1500.10}", null, "key-" + claimed, 1, 2_000,
                    2_001, null), null, 2_001, 600_000_000L);
            synchronized (System.out) {
                System.out.println(claimed);
                System.out.flush();
            }
            if (i % 3 == 0) {
                store.complete(lease, "{\"total\":150.00}", 2_002);
            }
            else if (i % 3 == 1) {
                store.suspend(lease, List.of(new StepRow(claimed, 1, StepRow.DELAY, "delay", "[3600000]",
                        StepRow.PENDING, null, null, "key-" + claimed + "-1", 1, 2_003, 0, null)),
                        new Suspend(ExecutionStatus.WAITING, 3_602_003L, Set.of(), Set.of()), 2_003, 2_003);
            }
        }
    }
}
