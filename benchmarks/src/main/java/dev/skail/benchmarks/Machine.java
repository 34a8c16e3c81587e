package dev.skail.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The machine a run measures: processors, memory, operating system, JVM, load, and the floor of a durable write on
 * the disk the stores write to: one 4 KiB write followed by {@link FileChannel#force(boolean) force(true)}
 * ({@code fsync}), in a file written once beforehand (as a database overwrites its log), repeated; the median is what
 * one sync costs at least, whatever the store.
 */
final class Machine {

    private static final int FSYNC_WRITES = 1000;

    private Machine() {
    }

    /** The machine's description, as rows of the report. */
    static Map<String, String> describe(Path disk) throws IOException {
        Map<String, String> rows = new LinkedHashMap<>();
        rows.put("processors", Runtime.getRuntime().availableProcessors() + " (" + cpuModel() + ")");
        rows.put("memory", memory());
        rows.put("operating system", os());
        rows.put("JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
                + System.getProperty("java.vm.vendor") + ")");
        rows.put("load average at start (1 min)", String.format(Locale.ROOT, "%.2f",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
        rows.put("fsync floor", fsyncFloor(disk));
        return rows;
    }

    /** One 4 KiB write and force(true), {@value #FSYNC_WRITES} times in {@code directory}: median, p99, per second. */
    static String fsyncFloor(Path directory) throws IOException {
        Path file = Files.createTempFile(directory, "fsync-floor", ".dat");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocateDirect(FSYNC_WRITES * 4096);
            channel.write(zeros, 0);
            channel.force(true);
            ByteBuffer page = ByteBuffer.allocateDirect(4096);
            long[] nanos = new long[FSYNC_WRITES];
            long start = System.nanoTime();
            for (int i = 0; i < FSYNC_WRITES; i++) {
                page.clear();
                page.putLong(0, i);
                long before = System.nanoTime();
                channel.write(page, (long) i * 4096);
                channel.force(true);
                nanos[i] = System.nanoTime() - before;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            Stats stats = Stats.of(nanos);
            return String.format(Locale.ROOT, "one 4 KiB write + fsync: median %.3f ms, p99 %.3f ms (%,.0f/s in a row)"
                    + ", in %s", stats.ms(50), stats.ms(99), FSYNC_WRITES / seconds, directory);
        }
        finally {
            Files.deleteIfExists(file);
        }
    }

    static String load() {
        return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static String cpuModel() {
        String model = firstValue(Path.of("/proc/cpuinfo"), "model name", null);
        return (model != null) ? model : "unknown model";
    }

    private static String memory() {
        String total = firstValue(Path.of("/proc/meminfo"), "MemTotal", null);
        if (total == null) {
            return "unknown";
        }
        long kib = Long.parseLong(total.replaceAll("[^0-9]", ""));
        return String.format(Locale.ROOT, "%.1f GiB", kib / 1048576.0);
    }

    private static String os() {
        String pretty = firstValue(Path.of("/etc/os-release"), "PRETTY_NAME", null);
        String kernel = System.getProperty("os.name") + " " + System.getProperty("os.version");
        return (pretty != null) ? pretty.replace("\"", "") + ", " + kernel : kernel;
    }

    private static @Nullable String firstValue(Path file, String key, @Nullable String otherwise) {
        try {
            List<String> lines = Files.readAllLines(file);
            for (String line : lines) {
                if (line.startsWith(key)) {
                    int separator = line.indexOf(line.contains(":") ? ':' : '=');
                    return line.substring(separator + 1).trim();
                }
            }
        }
        catch (IOException ex) {
            // not Linux: left unknown
        }
        return otherwise;
    }
}
