package dev.skail.runtime;

import dev.skail.platform.ExecutionStore;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link EngineTests} on the JDBC store (PostgreSQL, each test in a schema of its own): the same scenarios, the same expected histories, so the in-memory
 * store the fast tests use is held to the real store's behaviour.
 */
class EngineOnPostgreSqlTests extends EngineTests {

    private final JdbcStores stores = new JdbcStores();

    @Override
    ExecutionStore newStore() {
        return this.stores.postgreSql();
    }

    @AfterEach
    void closeStores() {
        this.stores.close();
    }
}
