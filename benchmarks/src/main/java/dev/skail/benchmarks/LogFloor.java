package dev.skail.benchmarks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

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
 * Run: {@code java benchmarks/src/main/java/dev/skail/benchmarks/LogFloor.java [directory] [threads]}.
 */
public final class LogFloor {

    private static final int RECORDS_PER_EXECUTION = 12;

    private static final byte[] RECORD = ("{\"taskId\":\"pedido-000001\",\"position\":3,\"kind\":\"COMMAND\","
            + "\"name\":\"cobrarCartao\",\"arguments\":\"[{\\\"total\\\":150.00,\\\"moeda\\\":\\\"BRL\\\"}]\","
            + "\"status\":\"COMPLETED\",\"result\":\"{\\\"autorizacao\\\":\\\"A-7731\\\",\\\"valor\\\":150.00}\","
            + "\"idempotencyKey\":\"pedido-000001-3\",\"functionAttempt\":1,\"startedAt\":1764576000000,"
            + "\"completedAt\":1764576000012,\"lease\":\"3f1c2a9e\"}\n").getBytes(StandardCharsets.UTF_8);

    private final FileChannel channel;

    private final Object lock = new Object();

    private long appended;

    private long durable;

    private boolean forcing;

    private final AtomicLong forces = new AtomicLong();

    private LogFloor(FileChannel channel) {
        this.channel = channel;
    }

    public static void main(String[] args) throws Exception {
        Path directory = Path.of((args.length > 0) ? args[0] : System.getProperty("java.io.tmpdir"));
        int threads = (args.length > 1) ? Integer.parseInt(args[1]) : 32;
        Path file = Files.createTempFile(directory, "skail-log-floor", ".log");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            // preallocated and forced once: an append then changes no file size, and fdatasync writes the data alone
            ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
            for (int i = 0; i < 256; i++) {
                zeros.clear();
                channel.write(zeros, (long) i << 20);
            }
            channel.force(true);
            LogFloor log = new LogFloor(channel);
            log.sequential(200);
            log.sequential(1000);
            log.concurrent(threads, 2000);
            log.concurrent(threads, 4000);
        }
        finally {
            Files.deleteIfExists(file);
        }
    }

    private void sequential(int executions) throws IOException {
        long[] times = new long[executions];
        for (int e = 0; e < executions; e++) {
            long start = System.nanoTime();
            for (int r = 0; r < RECORDS_PER_EXECUTION; r++) {
                appendAndForce();
            }
            times[e] = System.nanoTime() - start;
        }
        Arrays.sort(times);
        System.out.printf("sequential: %d executions of %d records: median %.3f ms, p99 %.3f ms per execution%n",
                executions, RECORDS_PER_EXECUTION, times[executions / 2] / 1e6, times[executions * 99 / 100] / 1e6);
    }

    private void concurrent(int threads, int executions) throws Exception {
        AtomicLong next = new AtomicLong();
        long forcesBefore = this.forces.get();
        CountDownLatch done = new CountDownLatch(threads);
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    while (next.getAndIncrement() < executions) {
                        for (int r = 0; r < RECORDS_PER_EXECUTION; r++) {
                            appendAndForce();
                        }
                    }
                }
                catch (IOException ex) {
                    throw new IllegalStateException(ex);
                }
                finally {
                    done.countDown();
                }
            });
            thread.start();
        }
        done.await();
        double seconds = (System.nanoTime() - start) / 1e9;
        long forced = this.forces.get() - forcesBefore;
        System.out.printf("concurrent: %d writers, %d executions: %.0f executions/s, %.0f records/s, %.1f records "
                + "per force%n", threads, executions, executions / seconds,
                executions * RECORDS_PER_EXECUTION / seconds, (double) executions * RECORDS_PER_EXECUTION / forced);
    }

    /** Appends one record and returns once a force that began after it has ended. */
    private void appendAndForce() throws IOException {
        long mine;
        synchronized (this.lock) {
            long position = this.appended;
            this.appended += RECORD.length;
            mine = this.appended;
            this.channel.write(ByteBuffer.wrap(RECORD), position);
        }
        while (true) {
            long covered;
            synchronized (this.lock) {
                while (this.durable < mine && this.forcing) {
                    try {
                        this.lock.wait();
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        throw new IOException(ex);
                    }
                }
                if (this.durable >= mine) {
                    return;
                }
                this.forcing = true;
                covered = this.appended;
            }
            try {
                this.channel.force(false);
                this.forces.incrementAndGet();
            }
            finally {
                synchronized (this.lock) {
                    this.forcing = false;
                    this.durable = Math.max(this.durable, covered);
                    this.lock.notifyAll();
                }
            }
        }
    }
}
