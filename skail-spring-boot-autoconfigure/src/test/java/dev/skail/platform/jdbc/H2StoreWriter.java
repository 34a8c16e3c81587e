package dev.skail.platform.jdbc;

import java.util.List;
import java.util.Set;


import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.Tag;

/**
 * A process that runs orders through the embedded store on several threads, each order created with tags, claimed,
 * given a recorded step and, one in three, completed, and prints each order's id once its step is acknowledged: for
 * tests that kill it. Arguments: the store's URL, the first order number, the number of threads, and optionally
 * {@code true} for a thread that compacts the file 50 times a second (the store: once).
 */
public final class H2StoreWriter {

    private H2StoreWriter() {
    }

    public static void main(String[] args) throws Exception {
        JdbcExecutionStore store = H2TestStore.openUrl(args[0], 16);
        int first = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        if (args.length > 3 && Boolean.parseBoolean(args[3])) {
            // the store's own compaction, far more often and more of it than it does by itself
            H2Housekeeping housekeeping = java.util.Objects.requireNonNull(
                    ((H2JdbcCustomization) store.customization()).housekeeping());
            Thread compactor = new Thread(() -> {
                while (true) {
                    try {
                        housekeeping.compact(90, 1024 * 1024);
                    }
                    catch (Exception ex) {
                        ex.printStackTrace();
                    }
                    try {
                        Thread.sleep(20);
                    }
                    catch (InterruptedException ex) {
                        return;
                    }
                }
            }, "compactor");
            compactor.start();
        }
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread writer = new Thread(() -> write(store, first + thread * 100_000, thread), "writer-" + t);
            writer.start();
        }
    }

    private static void write(JdbcExecutionStore store, int first, int thread) {
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
        }
    }
}
