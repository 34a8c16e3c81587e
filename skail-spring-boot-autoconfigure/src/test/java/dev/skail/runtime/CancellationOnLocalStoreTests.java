package dev.skail.runtime;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.skail.platform.ExecutionStore;
import dev.skail.platform.local.LocalStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CancellationTests} on the store skail keeps itself, in a file (each durable write forced): the same scenarios, the
 * same expected histories as the JDBC store's.
 */
class CancellationOnLocalStoreTests extends CancellationTests {

    @TempDir
    Path directory;

    private final List<LocalStore> stores = new ArrayList<>();

    @Override
    ExecutionStore newStore() {
        LocalStore store = LocalStore.open(this.directory.resolve(this.stores.size() + "-" + LocalStore.FILE_NAME));
        store.initialize();
        this.stores.add(store);
        return store;
    }

    @AfterEach
    void closeStores() {
        this.stores.forEach(LocalStore::close);
    }
}
