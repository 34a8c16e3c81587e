package dev.skail.platform.local;

import java.nio.file.Path;

import dev.skail.platform.OrderWriter;

/**
 * The process {@link KilledLocalStoreTests} kills: threads that write orders ({@link OrderWriter}, one in three put to
 * sleep), printing each order's id once its step is acknowledged.
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
            new Thread(() -> OrderWriter.write(store, first + thread * 100_000, thread, true), "writer-" + t).start();
        }
    }
}
