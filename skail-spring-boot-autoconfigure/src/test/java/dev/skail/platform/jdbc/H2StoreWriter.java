package dev.skail.platform.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import com.zaxxer.hikari.HikariDataSource;

import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.Tag;

/**
 * A process that runs orders through an embedded store, each created, claimed and given a recorded step, and prints
 * each order's id once its step is acknowledged: for tests that kill it.
 */
public final class H2StoreWriter {

    private H2StoreWriter() {
    }

    public static void main(String[] args) throws Exception {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(H2Urls.durable(args[0]));
        JdbcExecutionStore store = new JdbcExecutionStore(dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(1), Duration.ofMillis(5)), dataSource);
        store.initialize();
        for (int i = 0; i < 1_000_000; i++) {
            String taskId = "pedido-" + i;
            store.create(H2RedoLogTests.order(taskId), List.of(new Tag("cliente", "c-" + (i % 7))));
            Lease lease = store.claimDue("vendas", "v1", "writer", 1, 1_000 + i, 60_000 + i, Set.of()).get(0);
            store.recordStep(lease, new StepRow(taskId, 0, StepRow.COMMAND, "cobrarCartao",
                    "[{\"valor\":150.00,\"moeda\":\"BRL\"}]", StepRow.COMPLETED,
                    "{\"cobranca\":\"ch-" + i + "\",\"em\":\"2026-12-02T10:15:30-03:00\"}", null, "key-" + i, 1,
                    2_000 + i, 2_001 + i, null), null, 2_001 + i, 60_000 + i);
            System.out.println(taskId);
            System.out.flush();
            if (i % 3 == 0) {
                store.complete(lease, "{\"total\":150.00}", 2_002 + i);
            }
        }
    }
}
