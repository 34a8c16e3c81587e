package dev.skail.runtime;

import dev.skail.platform.ExecutionStore;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link EngineTests} on the embedded store, in files (each durable write forced): the same scenarios, the same
 * expected histories as the JDBC stores'.
 */
class EngineOnLocalStoreTests extends EngineTests {

    private final LocalStores stores = new LocalStores();

    @Override
    ExecutionStore newStore() {
        return this.stores.open();
    }

    @AfterEach
    void closeStores() {
        this.stores.close();
    }
}
