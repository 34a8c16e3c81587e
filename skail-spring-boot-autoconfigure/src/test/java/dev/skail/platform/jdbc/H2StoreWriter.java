package dev.skail.platform.jdbc;

import dev.skail.platform.OrderWriter;

/**
 * A process that runs orders through the H2 file store on several threads, each order created with tags, claimed,
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
            Thread writer = new Thread(() -> OrderWriter.write(store, first + thread * 100_000, thread, false),
                    "writer-" + t);
            writer.start();
        }
    }
}
