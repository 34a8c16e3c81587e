package dev.skail.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.jdbc.JdbcExecutionStore;
import dev.skail.platform.jdbc.SqlDialect;
import dev.skail.platform.jdbc.StoreRetry;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link CancellationTests} on the JDBC store (H2 in memory): the same scenarios, the same expected histories, so the
 * in-memory store the fast tests use is held to the real store's behaviour.
 */
class CancellationOnH2StoreTests extends CancellationTests {

    private final List<JdbcExecutionStore> stores = new ArrayList<>();

    @Override
    ExecutionStore newStore() {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl("jdbc:h2:mem:engine-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        dataSource.setMaximumPoolSize(2);
        JdbcExecutionStore store = new JdbcExecutionStore(dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(1), Duration.ofMillis(5)), dataSource);
        store.initialize();
        this.stores.add(store);
        return store;
    }

    @AfterEach
    void closeStores() throws Exception {
        for (JdbcExecutionStore store : this.stores) {
            store.close();
        }
    }
}
