package dev.skail.benchmarks;

import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * What the storage of a recorded step would cost if the embedded store were an append-only log of its own (the
 * design the note proposes), without skail: records of the size of a step (~300 bytes of JSON) appended to a
 * preallocated file and forced ({@code fdatasync}) before anyone is told, the records that wait together forced once
 * (group commit). No index, no reads: the floor such a store could reach on this disk, to set beside the floor of a
 * durable commit in H2 ({@link CommitFloor}).
 * <ul>
 * <li>sequential: one writer, executions of 12 records in a row (a trigger, 10 steps, an end: what benchmark A
 * writes), each record forced before the next;</li>
 * <li>concurrent: {@code threads} writers, each writing executions of 12 records in a row (benchmark B's shape).</li>
 * </ul>
 * Run, after {@code ./bin/benchmark} built the harness: {@code java -cp "$(cat benchmarks/target/classpath.txt)"
 * dev.skail.benchmarks.LogFloor [directory] [threads]}.
 */
public final class LogFloor {

    private static final int RECORDS_PER_EXECUTION = 12;

    private static final byte[] RECORD = ("{\"taskId\":\"pedido-000001\",\"position\":3,\"kind\":\"COMMAND\","
            + "\"name\":\"cobrarCartao\",\"arguments\":\"[{\\\"total\\\":150.00,\\\"moeda\\\":\\\"BRL\\\"}]\","
            + "\"status\":\"COMPLETED\",\"result\":\"{\\\"autorizacao\\\":\\\"A-7731\\\",\\\"valor\\\":150.00}\","
            + "\"idempotencyKey\":\"pedido-000001-3\",\"functionAttempt\":1,\"startedAt\":1764576000000,"
            + "\"completedAt\":1764576000012,\"lease\":\"3f1c2a9e\"}\n").getBytes(StandardCharsets.UTF_8);

    private static final long SIZE = 256L << 20;

    private final ForcedLog log;

    private LogFloor(ForcedLog log) {
        this.log = log;
    }

    public static void main(String[] args) throws Exception {
        Path directory = Path.of((args.length > 0) ? args[0] : System.getProperty("java.io.tmpdir"));
        int threads = (args.length > 1) ? Integer.parseInt(args[1]) : 32;
        Path file = Files.createTempFile(directory, "skail-log-floor", ".log");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ForcedLog.preallocate(channel, SIZE);
            LogFloor log = new LogFloor(new ForcedLog(channel, SIZE, 0));
            log.sequential(200);
            log.sequential(1000);
            log.concurrent(threads, 2000);
            log.concurrent(threads, 4000);
        }
        finally {
            Files.deleteIfExists(file);
        }
    }

    private void sequential(int executions) {
        long[] times = new long[executions];
        for (int e = 0; e < executions; e++) {
            long start = System.nanoTime();
            for (int r = 0; r < RECORDS_PER_EXECUTION; r++) {
                this.log.append(RECORD);
            }
            times[e] = System.nanoTime() - start;
        }
        Arrays.sort(times);
        System.out.printf("sequential: %d executions of %d records: median %.3f ms, p99 %.3f ms per execution%n",
                executions, RECORDS_PER_EXECUTION, times[executions / 2] / 1e6, times[executions * 99 / 100] / 1e6);
    }

    private void concurrent(int threads, int executions) throws InterruptedException {
        long forcesBefore = this.log.forces.get();
        long start = System.nanoTime();
        Threads.forEach(threads, executions, (i) -> {
            for (int r = 0; r < RECORDS_PER_EXECUTION; r++) {
                this.log.append(RECORD);
            }
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        long forced = this.log.forces.get() - forcesBefore;
        System.out.printf("concurrent: %d writers, %d executions: %.0f executions/s, %.0f records/s, %.1f records "
                + "per force%n", threads, executions, executions / seconds,
                executions * RECORDS_PER_EXECUTION / seconds, (double) executions * RECORDS_PER_EXECUTION / forced);
    }
}
