package dev.skail.platform;

import java.util.List;
import java.util.Set;

import dev.skail.ExecutionStatus;

/**
 * The writes of the crash tests' writers ({@code KilledStoreTests} and {@code KilledLocalStoreTests} in processes of
 * their own, {@code PowerLossTests} in threads): orders triggered, claimed, their charge recorded, one in three ended
 * and, where asked, one in three put to sleep; each order's id printed (or handed over) once its step is acknowledged.
 */
public final class OrderWriter {

    private OrderWriter() {
    }

    /**
     * Writes orders {@code first} to {@code first + 99,999} as thread {@code thread} of the writer.
     * @param sleeps whether one order in three is put to sleep on a delay after its charge
     */
    public static void write(ExecutionStore store, int first, int thread, boolean sleeps) {
        write(store, first, thread, sleeps, (taskId) -> {
            synchronized (System.out) {
                System.out.println(taskId);
                System.out.flush();
            }
        });
    }

    /**
     * Writes orders as {@link #write(ExecutionStore, int, int, boolean)} does, handing each order's id to
     * {@code acknowledged} once its step is acknowledged, until a write fails.
     */
    public static void write(ExecutionStore store, int first, int thread, boolean sleeps,
            java.util.function.Consumer<String> acknowledged) {
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
            acknowledged.accept(claimed);
            if (i % 3 == 0) {
                store.complete(lease, "{\"total\":150.00}", 2_002);
            }
            else if (sleeps && i % 3 == 1) {
                store.suspend(lease, List.of(new StepRow(claimed, 1, StepRow.DELAY, "delay", "[3600000]",
                        StepRow.PENDING, null, null, "key-" + claimed + "-1", 1, 2_003, 0, null)),
                        new Suspend(ExecutionStatus.WAITING, 3_602_003L, Set.of(), Set.of()), 2_003, 2_003);
            }
        }
    }
}
