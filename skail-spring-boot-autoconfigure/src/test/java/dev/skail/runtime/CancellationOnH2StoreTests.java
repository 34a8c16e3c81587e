package dev.skail.runtime;

import dev.skail.platform.ExecutionStore;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link CancellationTests} on the JDBC store (H2 in memory): the same scenarios, the same expected histories, so the in-memory
 * store the fast tests use is held to the real store's behaviour.
 */
class CancellationOnH2StoreTests extends CancellationTests {

    private final JdbcStores stores = new JdbcStores();

    @Override
    ExecutionStore newStore() {
        return this.stores.h2();
    }

    @AfterEach
    void closeStores() {
        this.stores.close();
    }
}
