package dev.skail.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.skail.platform.local.LocalStore;

/**
 * The embedded store the engine's scenarios also run on: each a fresh store in files of its own (each durable write
 * forced, as in production), in a directory this creates; {@link #close()} closes them all and deletes it.
 */
final class LocalStores implements AutoCloseable {

    private final List<LocalStore> stores = new ArrayList<>();

    private Path directory;

    LocalStore open() {
        try {
            if (this.directory == null) {
                this.directory = Files.createTempDirectory("skail-engine-");
            }
            LocalStore store = LocalStore.open(this.directory.resolve(this.stores.size() + "-" + LocalStore.FILE_NAME));
            store.initialize();
            this.stores.add(store);
            return store;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void close() {
        this.stores.forEach(LocalStore::close);
        this.stores.clear();
        if (this.directory != null) {
            try {
                org.springframework.util.FileSystemUtils.deleteRecursively(this.directory);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            this.directory = null;
        }
    }
}
