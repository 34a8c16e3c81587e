package dev.skail.benchmarks;

import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import dev.skail.platform.jdbc.H2Urls;
import dev.skail.platform.local.GroupForce;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.jspecify.annotations.Nullable;

/**
 * What the embedded store's writes would cost if skail kept its records itself, on H2's storage engine (MVStore maps,
 * no SQL, no H2 transactions) with skail's own group commit: the "store of record of our own" of the notes,
 * on a file format, crash recovery and compaction that H2 already has. Without the runtime: the rows the store writes
 * per execution, as maps of JSON strings (an execution, its steps, the index of what is due), each durable write
 * durable before it returns, as the product's. Two ways of making a write durable:
 * <ul>
 * <li>{@code maps} (the default): the maps' commit ({@code MVStore.commit}, one chunk written) and a force of their
 * file ({@code fdatasync} through the {@code skail:} file system the store uses); the writes that wait together share
 * one chunk and one force (group commit);</li>
 * <li>{@code log}: a record of the write (the size of a step's row) appended to a preallocated log and forced, the
 * records that wait together forced once; the maps are stored by a checkpointer every 100 ms and forced every second,
 * in the background (after a crash, the log's records after the last forced chunk would be applied again).</li>
 * </ul>
 * The shapes:
 * <ul>
 * <li>A's, one writer: an execution is a trigger, 10 steps and an end, each durable before the next;</li>
 * <li>D's, {@code threads} writers: {@code executions} triggered, claimed and put to sleep (a delay step, the
 * execution waiting, its timer), then claimed again, their history read, one step recorded and ended. A claim is not
 * durable (as the product's: a lost claim only delays the execution).</li>
 * </ul>
 * A chunk holds only whole operations: a commit takes the write side of a lock whose read side every operation holds
 * while it writes its maps, so a crash leaves the maps as after some commit (MVStore finds its last whole chunk). No
 * compaction runs: the file only grows. Run, after {@code ./bin/benchmark} (or {@code mvn -Pbenchmarks -pl benchmarks
 * -am package -DskipTests}) built the harness: {@code java -cp "$(cat benchmarks/target/classpath.txt)"
 * dev.skail.benchmarks.MapStoreFloor [directory] [threads] [executions] [maps|log]}.
 */
public final class MapStoreFloor {

    private static final String EXECUTION = "{\"taskId\":\"%s\",\"workload\":\"bench\",\"version\":\"v1\","
            + "\"function\":\"sleeper\",\"status\":\"%s\",\"arguments\":\"[7]\",\"attempt\":1,"
            + "\"createdAt\":1764576000000,\"updatedAt\":1764576000012,\"lease\":\"3f1c2a9e-77b1\","
            + "\"leaseUntil\":1764576030012,\"runAt\":1764579600000}";

    private static final String STEP = "{\"position\":%d,\"kind\":\"COMMAND\",\"name\":\"cobrarCartao\","
            + "\"arguments\":\"[{\\\"total\\\":150.00,\\\"moeda\\\":\\\"BRL\\\"}]\",\"status\":\"COMPLETED\","
            + "\"result\":\"{\\\"autorizacao\\\":\\\"A-7731\\\",\\\"valor\\\":150.00}\","
            + "\"idempotencyKey\":\"%s-%d\",\"functionAttempt\":1,\"startedAt\":1764576000000,"
            + "\"completedAt\":1764576000012}";

    private static final long LOG_SIZE = 256L << 20;

    /** A log record: a step's row as JSON, the size of what the store writes for it. */
    private static final byte[] RECORD = (String.format(STEP, 3, "pedido-000001", 3) + "\n")
        .getBytes(StandardCharsets.UTF_8);

    private final MVStore store;

    private final MVMap<String, String> executions;

    private final MVMap<String, String> steps;

    private final MVMap<String, String> due;

    /** Held (read side) by every operation while it writes, (write side) by a commit. */
    private final ReentrantReadWriteLock writes = new ReentrantReadWriteLock();

    /** The maps' group commit: a mark is a store version, durable once committed in a chunk and forced. */
    private final GroupForce group = new GroupForce(-1);

    private final AtomicLong forces = new AtomicLong();

    private final AtomicLong waited = new AtomicLong();

    private final AtomicLong commitNanos = new AtomicLong();

    /** The maps' commits this harness made: MVStore stores nothing else (checked at the end). */
    private final AtomicLong commits = new AtomicLong();

    private final AtomicLong forceNanos = new AtomicLong();

    /**
     * With a log: every durable write appends its record to it and waits for a force (group commit), the maps then
     * stored by a checkpointer in the background without a force of their own; {@code null}: each write's commit
     * forced.
     */
    private final @Nullable ForcedLog log;

    private volatile boolean checkpointing = true;

    private MapStoreFloor(MVStore store, @Nullable ForcedLog log) {
        this.store = store;
        this.log = log;
        this.executions = store.openMap("execution");
        this.steps = store.openMap("step");
        this.due = store.openMap("due");
    }

    public static void main(String[] args) throws Exception {
        Path directory = Path.of((args.length > 0) ? args[0] : System.getProperty("java.io.tmpdir"));
        int threads = (args.length > 1) ? Integer.parseInt(args[1]) : 32;
        int executions = (args.length > 2) ? Integer.parseInt(args[2]) : 100_000;
        boolean withLog = (args.length > 3) && args[3].equals("log");
        // the file system of the store's default URL: the file extended ahead of the writes, a force is fdatasync
        H2Urls.durable(H2Urls.PREALLOCATED_FILE + "/registered");
        Path file = Files.createTempFile(directory, "skail-map-floor", ".mv.db");
        Files.delete(file);
        Path logFile = directory.resolve(file.getFileName() + ".log");
        try (MVStore store = new MVStore.Builder().fileName("skail:" + file.toAbsolutePath())
            .autoCommitDisabled()
            // nor a chunk stored by a writing thread once enough is unsaved: chunks are this harness's commits only
            .autoCommitBufferSize(0)
            .open()) {
            FileChannel logChannel = withLog ? FileChannel.open(logFile, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.READ, StandardOpenOption.WRITE) : null;
            if (logChannel != null) {
                ForcedLog.preallocate(logChannel, LOG_SIZE);
            }
            MapStoreFloor floor = new MapStoreFloor(store,
                    (logChannel != null) ? new ForcedLog(logChannel, LOG_SIZE, 0) : null);
            Thread checkpointer = new Thread(floor::checkpoints, "checkpointer");
            if (logChannel != null) {
                checkpointer.start();
            }
            System.out.println(withLog ? "durable: a record appended to a log and forced (group commit); the maps "
                    + "stored every 100 ms in the background, forced every second" : "durable: MVStore's commit "
                    + "(a chunk written) and a force of its file (group commit)");
            long version = store.getCurrentVersion();
            floor.sequential("a-warm", 300);
            floor.sequential("a", 1000);
            floor.sleepAndWake(threads, Math.min(executions, 10_000), "warm-");
            floor.sleepAndWake(threads, executions, "d-");
            floor.checkpointing = false;
            checkpointer.join();
            if (store.getCurrentVersion() - version > floor.commits.get()) {
                throw new IllegalStateException("MVStore stored chunks of its own: the figures are not of this design");
            }
            if (logChannel != null) {
                logChannel.close();
            }
            System.out.printf("file: %.1f MB, %d chunks written%n", Files.size(file) / 1e6,
                    store.getFileStore().getWriteCount());
        }
        finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(logFile);
        }
    }

    private void sequential(String label, int count) {
        long[] times = new long[count];
        long forcesBefore = forces();
        long commitBefore = this.commitNanos.get();
        long forceBefore = forceNanos();
        for (int e = 0; e < count; e++) {
            String id = label + "-" + e;
            long start = System.nanoTime();
            durably(() -> {
                this.executions.put(id, String.format(EXECUTION, id, "RUNNING"));
            });
            for (int s = 0; s < 10; s++) {
                int position = s;
                durably(() -> this.steps.put(id + "|" + position, String.format(STEP, position, id, position)));
            }
            durably(() -> this.executions.put(id, String.format(EXECUTION, id, "COMPLETED")));
            times[e] = System.nanoTime() - start;
        }
        Arrays.sort(times);
        if (!label.endsWith("warm")) {
            long forced = forces() - forcesBefore;
            String perForce = (this.log != null) ? String.format("%.3f ms forcing the log",
                    (forceNanos() - forceBefore) / 1e6 / forced)
                    : String.format("%.3f ms committing the maps (the lock, the chunk written), %.3f ms forcing",
                            (this.commitNanos.get() - commitBefore) / 1e6 / forced,
                            (forceNanos() - forceBefore) / 1e6 / forced);
            System.out.printf("A's shape, one writer, %d executions of 12 durable writes: median %.3f ms, p99 %.3f ms "
                    + "an execution; per force: %s%n", count, times[count / 2] / 1e6, times[count * 99 / 100] / 1e6,
                    perForce);
        }
    }

    private void sleepAndWake(int threads, int count, String prefix) throws InterruptedException {
        long forcesBefore = forces();
        long waitedBefore = this.waited.get();
        long start = System.nanoTime();
        Threads.forEach(threads, count, (i) -> {
            String id = prefix + i;
            durably(() -> {
                this.executions.put(id, String.format(EXECUTION, id, "PENDING"));
                this.due.put("0|" + id, id);
            });
            // the claim: not forced
            locked(() -> {
                this.due.remove("0|" + id);
                this.executions.put(id, String.format(EXECUTION, id, "RUNNING"));
            });
            durably(() -> {
                this.steps.put(id + "|0", String.format(STEP, 0, id, 0));
                this.executions.put(id, String.format(EXECUTION, id, "WAITING"));
                this.due.put("1764579600000|" + id, id);
            });
        });
        double asleep = (System.nanoTime() - start) / 1e9;
        long forcesAsleep = forces();
        long waitedAsleep = this.waited.get();
        start = System.nanoTime();
        AtomicInteger histories = new AtomicInteger();
        Threads.forEach(threads, count, (i) -> {
            String id = prefix + i;
            locked(() -> {
                this.due.remove("1764579600000|" + id);
                this.executions.put(id, String.format(EXECUTION, id, "RUNNING"));
            });
            // the history, read on waking
            String from = id + "|";
            for (var cursor = this.steps.cursor(from); cursor.hasNext();) {
                String key = cursor.next();
                if (!key.startsWith(from)) {
                    break;
                }
                histories.addAndGet(cursor.getValue().length() > 0 ? 1 : 0);
            }
            durably(() -> this.steps.put(id + "|1", String.format(STEP, 1, id, 1)));
            durably(() -> this.executions.put(id, String.format(EXECUTION, id, "COMPLETED")));
        });
        double woken = (System.nanoTime() - start) / 1e9;
        if (histories.get() != count) {
            throw new IllegalStateException("read " + histories.get() + " histories' steps, expected " + count);
        }
        if (!prefix.startsWith("warm")) {
            System.out.printf("D's shape, %d writers, %d executions: put to sleep %.0f/s (%.1f durable writes a "
                    + "force), woken and ended %.0f/s (%.1f a force)%n", threads, count, count / asleep,
                    (double) (waitedAsleep - waitedBefore) / (forcesAsleep - forcesBefore), count / woken,
                    (double) (this.waited.get() - waitedAsleep) / (forces() - forcesAsleep));
        }
    }

    /** The checkpointer: the maps' changes stored every 100 ms, whole operations only; forced every second. */
    private void checkpoints() {
        long lastSync = System.nanoTime();
        while (this.checkpointing) {
            try {
                Thread.sleep(100);
            }
            catch (InterruptedException ex) {
                return;
            }
            this.writes.writeLock().lock();
            try {
                this.store.commit();
                this.commits.incrementAndGet();
            }
            finally {
                this.writes.writeLock().unlock();
            }
            if (System.nanoTime() - lastSync > 1_000_000_000L) {
                this.store.sync();
                lastSync = System.nanoTime();
            }
        }
    }

    private long forces() {
        return (this.log != null) ? this.log.forces.get() : this.forces.get();
    }

    private long forceNanos() {
        return (this.log != null) ? this.log.forceNanos.get() : this.forceNanos.get();
    }

    private void locked(Runnable write) {
        this.writes.readLock().lock();
        try {
            write.run();
        }
        finally {
            this.writes.readLock().unlock();
        }
    }

    /**
     * Runs the write, then returns once a commit that began after it has been forced: the first thread to find none in
     * hand commits and forces for every write made until then.
     */
    private void durably(Runnable write) {
        if (this.log != null) {
            locked(write);
            this.waited.incrementAndGet();
            this.log.append(RECORD);
            return;
        }
        long version;
        this.writes.readLock().lock();
        try {
            write.run();
            // the version a commit from now on stores (MVStore stores the current version, then moves to the next)
            version = this.store.getCurrentVersion();
        }
        finally {
            this.writes.readLock().unlock();
        }
        this.waited.incrementAndGet();
        this.group.await(version, () -> {
            long begun = System.nanoTime();
            long stored;
            this.writes.writeLock().lock();
            try {
                stored = this.store.getCurrentVersion();
                this.store.commit();
                this.commits.incrementAndGet();
            }
            finally {
                this.writes.writeLock().unlock();
            }
            long committed = System.nanoTime();
            this.store.sync();
            this.commitNanos.addAndGet(committed - begun);
            this.forceNanos.addAndGet(System.nanoTime() - committed);
            this.forces.incrementAndGet();
            return stored;
        });
    }
}
