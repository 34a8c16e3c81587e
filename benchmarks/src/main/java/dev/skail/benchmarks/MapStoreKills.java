package dev.skail.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import dev.skail.platform.jdbc.H2Urls;
import org.jspecify.annotations.Nullable;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;

/**
 * Whether a store of record of our own (a log of records forced, with MVStore maps as the index, stored in the
 * background between whole operations: {@link MapStoreFloor}'s {@code log} way) survives a process killed at any
 * moment: the question that sank session 8's log in front of H2's SQL engine, whose background writer stored chunks
 * in the middle of a statement. A writer process runs operations of D's shape on 8 threads (created: the execution
 * PENDING and due; claimed, not durable: RUNNING, no longer due; put to sleep: a delay step, WAITING, due later), each
 * durable one logged and forced before it returns and then noted in an acknowledgements file; the maps are stored every
 * 100 ms with the log's position they hold, and forced every second. Killed with {@code kill -9}, then:
 * {@code check} opens the maps (MVStore finds its last whole chunk), applies the log's records from the position stored
 * with them, and checks that every acknowledged operation is there and that each execution's row agrees with the
 * index of what is due (a chunk stored in the middle of an operation would leave them apart).
 * <p>
 * Run, after {@code ./bin/benchmark} built the harness: {@code java -cp "$(cat benchmarks/target/classpath.txt)"
 * dev.skail.benchmarks.MapStoreKills loop <a new directory> <kills>}: a writer process started on the directory,
 * killed with {@code SIGKILL} at a random moment, the check, {@code kills} times, the directory kept from kill to kill
 * (a writer first recovers as the check does).
 */
public final class MapStoreKills {

    private static final long LOG_SIZE = 256L << 20;

    private static final String POSITION = "logPosition";

    private final MVStore store;

    private final MVMap<String, String> executions;

    private final MVMap<String, String> steps;

    private final MVMap<String, String> due;

    private final MVMap<String, Long> meta;

    private final FileChannel log;

    /** The writer's claims take 2 ms between their two writes (a window for a chunk stored in between). */
    private volatile boolean slowClaims;

    private final ReentrantReadWriteLock writes = new ReentrantReadWriteLock();

    /** The log appended to from where {@link #recover} found its end. */
    private @Nullable ForcedLog records;

    private MapStoreKills(MVStore store, FileChannel log) {
        this.store = store;
        this.log = log;
        this.executions = store.openMap("execution");
        this.steps = store.openMap("step");
        this.due = store.openMap("due");
        this.meta = store.openMap("meta");
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("loop")) {
            loop(Path.of(args[1]), Integer.parseInt(args[2]));
            return;
        }
        open(args[0], Path.of(args[1]));
    }

    /**
     * {@code kills} times: a writer process started on the directory, killed ({@code SIGKILL}) after a random 0.5 to
     * 3 s, then the check; stops at the first failed check.
     */
    private static void loop(Path directory, int kills) throws Exception {
        java.util.Random random = new java.util.Random();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int kill = 1; kill <= kills; kill++) {
            Process writer = new ProcessBuilder(java, "-Dmutant=" + Boolean.getBoolean("mutant"), "-cp",
                    System.getProperty("java.class.path"),
                    MapStoreKills.class.getName(), "write", directory.toString())
                .inheritIO()
                .start();
            // the moment of the kill, at random: what is measured is the file it leaves
            Thread.sleep(500 + random.nextInt(2500));
            writer.destroyForcibly().waitFor();
            System.out.print("kill " + kill + ": ");
            open("check", directory);
        }
    }

    private static void open(String mode, Path directory) throws Exception {
        Files.createDirectories(directory);
        H2Urls.durable(H2Urls.PREALLOCATED_FILE + "/registered");
        Path logFile = directory.resolve("log");
        boolean fresh = !Files.exists(logFile);
        try (FileChannel log = FileChannel.open(logFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
                MVStore store = new MVStore.Builder().fileName("skail:" + directory.resolve("maps.mv.db").toAbsolutePath())
                    .autoCommitDisabled()
                    // nor a chunk stored by a writing thread once enough is unsaved: this class's commits only
                    .autoCommitBufferSize(0)
                    .open()) {
            if (fresh) {
                ForcedLog.preallocate(log, LOG_SIZE);
            }
            MapStoreKills kills = new MapStoreKills(store, log);
            int replayed = kills.recover();
            Path acks = directory.resolve("acks");
            if (mode.equals("check")) {
                kills.check(acks, replayed);
            }
            else {
                kills.slowClaims = true;
                kills.write(acks);
            }
        }
    }

    /**
     * Applies the log's records from the position the stored maps hold to its end (the first byte that begins no whole
     * record), clears what a killed writer left after that end (part of a record), stores and forces the maps, and goes
     * on appending after them. An operation is applied to the maps before its record is appended, so every record
     * before the stored position is of an operation the maps hold; applying the later ones again, in log order, gives
     * each execution the rows its last logged operation left.
     * @return how many records were applied
     */
    private int recover() throws IOException {
        long position = this.meta.getOrDefault(POSITION, 0L);
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(LOG_SIZE - position, 64 << 20));
        this.log.read(buffer, position);
        buffer.flip();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        int applied = 0;
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                break;
            }
            if (bytes[i] == '\n') {
                String record = new String(bytes, start, i - start, StandardCharsets.UTF_8);
                String[] parts = record.split(" ");
                if (parts.length != 2 || !(parts[0].equals("1") || parts[0].equals("3"))) {
                    break;
                }
                apply(parts[0].equals("1") ? 1 : 3, parts[1]);
                applied++;
                start = i + 1;
            }
        }
        long end = position + start;
        int left = 0;
        while (start + left < bytes.length && bytes[start + left] != 0) {
            left++;
        }
        if (left > 0) {
            this.log.write(ByteBuffer.allocate(left), end);
            this.log.force(false);
        }
        this.records = new ForcedLog(this.log, LOG_SIZE, end);
        this.meta.put(POSITION, end);
        this.store.commit();
        this.store.sync();
        return applied;
    }

    /** The rows operation {@code op} (1: created, 2: claimed, 3: put to sleep) of execution {@code id} leaves. */
    private void apply(int op, String id) {
        switch (op) {
            case 1 -> {
                this.executions.put(id, "PENDING");
                this.due.put("0|" + id, id);
            }
            case 2 -> {
                this.due.remove("0|" + id);
                if (this.slowClaims) {
                    pause(2);
                }
                this.executions.put(id, "RUNNING");
            }
            default -> {
                this.due.remove("0|" + id);
                this.steps.put(id + "|0", "{\"kind\":\"DELAY\",\"result\":\"1764579600000\"}");
                this.executions.put(id, "WAITING");
                this.due.put("1|" + id, id);
            }
        }
    }

    private void write(Path acks) throws Exception {
        FileChannel acknowledged = FileChannel.open(acks, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        String run = UUID.randomUUID().toString().substring(0, 8);
        AtomicLong next = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread thread = new Thread(() -> {
                while (true) {
                    String id = run + "-" + next.getAndIncrement();
                    durably(1, id);
                    ack(acknowledged, "1 " + id + "\n");
                    locked(2, id);
                    // the claimed execution's function runs (a command) before it sleeps: a claim is in the maps
                    // alone, in no log record, for that long
                    pause(20);
                    durably(3, id);
                    ack(acknowledged, "3 " + id + "\n");
                }
            });
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        long lastSync = System.nanoTime();
        long version = this.store.getCurrentVersion();
        long commits = 0;
        while (true) {
            Thread.sleep(100);
            if (this.store.getCurrentVersion() - version > commits) {
                throw new IllegalStateException("MVStore stored a chunk of its own: the test would not test the design");
            }
            if (Boolean.getBoolean("mutant")) {
                // the check of the check: chunks stored without the lock, so in the middle of operations
                this.meta.put(POSITION, this.records.position());
                this.store.commit();
                commits++;
                continue;
            }
            this.writes.writeLock().lock();
            try {
                // every record before this position is of an operation whose rows are in the maps now
                this.meta.put(POSITION, this.records.position());
                this.store.commit();
                commits++;
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

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static void ack(FileChannel acknowledged, String line) {
        try {
            // one write each, no force: a killed process's writes stay in the system's cache
            acknowledged.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void locked(int op, String id) {
        this.writes.readLock().lock();
        try {
            apply(op, id);
        }
        finally {
            this.writes.readLock().unlock();
        }
    }

    /** Applies the operation, appends its record and returns once a force that began after the append has ended. */
    private void durably(int op, String id) {
        locked(op, id);
        this.records.append((op + " " + id + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** Every acknowledged operation in the maps, and every execution's row in agreement with what is due. */
    private void check(Path acks, int replayed) throws IOException {
        List<String> problems = new ArrayList<>();
        Set<String> asleep = new HashSet<>();
        Set<String> created = new HashSet<>();
        for (String line : Files.readAllLines(acks)) {
            if (line.startsWith("3 ")) {
                asleep.add(line.substring(2));
            }
            else if (line.startsWith("1 ")) {
                created.add(line.substring(2));
            }
        }
        for (String id : created) {
            if (!this.executions.containsKey(id)) {
                problems.add("created and acknowledged, missing: " + id);
            }
        }
        for (String id : asleep) {
            if (!"WAITING".equals(this.executions.get(id)) || !this.steps.containsKey(id + "|0")) {
                problems.add("put to sleep and acknowledged, found " + this.executions.get(id) + ": " + id);
            }
        }
        for (Map.Entry<String, String> execution : this.executions.entrySet()) {
            String id = execution.getKey();
            boolean dueNow = this.due.containsKey("0|" + id);
            boolean dueLater = this.due.containsKey("1|" + id);
            boolean agrees = switch (execution.getValue()) {
                case "PENDING" -> dueNow && !dueLater;
                case "RUNNING" -> !dueNow && !dueLater;
                case "WAITING" -> !dueNow && dueLater && this.steps.containsKey(id + "|0");
                default -> false;
            };
            if (!agrees) {
                problems.add("row and index apart: " + id + " " + execution.getValue() + " due now " + dueNow
                        + ", due later " + dueLater);
            }
        }
        for (String key : this.due.keySet()) {
            if (!this.executions.containsKey(key.substring(2))) {
                problems.add("due, no row: " + key);
            }
        }
        System.out.printf("%s: %d executions, %d acknowledged created, %d acknowledged asleep, %d log records applied"
                + "%s%n", problems.isEmpty() ? "OK" : "FAILED", this.executions.size(), created.size(), asleep.size(),
                replayed, problems.isEmpty() ? "" : "; " + problems.size() + " problems, first: " + problems.get(0));
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the maps and the log after a kill are not what was acknowledged");
        }
    }
}
