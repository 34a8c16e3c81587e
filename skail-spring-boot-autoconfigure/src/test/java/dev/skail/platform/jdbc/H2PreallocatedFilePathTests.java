package dev.skail.platform.jdbc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.autoconfigure.SkailAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The embedded store's H2 file is kept ahead of H2's writes on the disk (so that a sync forces data alone), and H2
 * sees it as it wrote it: the same rows and the same file after a clean close, after a crash, and through a plain
 * {@code jdbc:h2:file:} URL.
 */
class H2PreallocatedFilePathTests {

    private static final int BLOCK = 4096;

    @TempDir
    Path directory;

    @Test
    void anH2FileStoreUrlUsesThePreallocatedFile() throws IOException {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SkailAutoConfiguration.class))
            .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.worker.enabled=false",
                    "skail.store.url=" + SkailAutoConfiguration.h2FileUrl(this.directory))
            .run((context) -> {
                assertThat(context).hasNotFailed();
                // the store's pool has written its schema: the file is on the disk, extended ahead of H2's writes
                Path file = this.directory.resolve("skail.mv.db");
                assertThat(file).exists();
                assertThat(Files.size(file) % H2PreallocatedFilePath.EXTENT).isZero();
            });
        // closed: the zeros are cut off, what is left ends with H2's own data
        Path file = this.directory.resolve("skail.mv.db");
        assertThat(Files.size(file) % H2PreallocatedFilePath.EXTENT).isNotZero();
        assertThat(lastBlockHoldsData(file)).isTrue();
    }

    @Test
    void whileOpenTheFileIsExtendedAheadAndH2SeesOnlyWhatItWrote() throws Exception {
        String url = url("orders");
        try (Connection connection = DriverManager.getConnection(url)) {
            insertOrders(connection, 0, 200);
            Path file = this.directory.resolve("orders.mv.db");
            long onDisk = Files.size(file);
            assertThat(onDisk % H2PreallocatedFilePath.EXTENT).isZero();
            // H2's own idea of its file's size (the MVStore's fill rate is computed from it) is what it wrote
            long seenByH2 = h2FileSize(connection);
            assertThat(seenByH2).isLessThan(onDisk).isPositive();
            assertThat(trailingZeroBytes(file)).isGreaterThanOrEqualTo(onDisk - seenByH2);
        }
        assertThat(Files.size(this.directory.resolve("orders.mv.db"))).isLessThan(H2PreallocatedFilePath.EXTENT);
        try (Connection connection = DriverManager.getConnection(url)) {
            assertThat(orders(connection)).hasSize(200).startsWith("order-0000:150.00").endsWith("order-0199:150.00");
        }
    }

    @Test
    void aFileLeftByACrashIsOpenedWithEverythingSyncedBeforeIt() throws Exception {
        String url = url("orders");
        Path crashed = this.directory.resolve("crashed");
        Files.createDirectories(crashed);
        try (Connection connection = DriverManager.getConnection(url)) {
            insertOrders(connection, 0, 300);
            // what the device holds once the sync returned (nothing else writes meanwhile): the file with its zeros
            Files.copy(this.directory.resolve("orders.mv.db"), crashed.resolve("orders.mv.db"));
        }
        assertThat(trailingZeroBytes(crashed.resolve("orders.mv.db"))).isGreaterThan(BLOCK);

        String crashedUrl = H2Urls.durable(H2Urls.PREALLOCATED_FILE + crashed.resolve("orders") + ";FILE_LOCK=FS");
        try (Connection connection = DriverManager.getConnection(crashedUrl)) {
            assertThat(orders(connection)).hasSize(300).endsWith("order-0299:150.00");
            // and it goes on from there
            insertOrders(connection, 300, 10);
            assertThat(orders(connection)).hasSize(310);
        }
        try (Connection connection = DriverManager.getConnection(crashedUrl)) {
            assertThat(orders(connection)).hasSize(310).endsWith("order-0309:150.00");
        }
    }

    @Test
    void aFileLeftByACrashOpensWithAPlainFileUrlToo() throws Exception {
        Path crashed = this.directory.resolve("crashed");
        Files.createDirectories(crashed);
        try (Connection connection = DriverManager.getConnection(url("orders"))) {
            insertOrders(connection, 0, 50);
            Files.copy(this.directory.resolve("orders.mv.db"), crashed.resolve("orders.mv.db"));
        }
        // an application that goes back to jdbc:h2:file: (or a tool such as H2's console) reads the same file
        try (Connection connection = DriverManager.getConnection("jdbc:h2:file:" + crashed.resolve("orders"))) {
            assertThat(orders(connection)).hasSize(50).endsWith("order-0049:150.00");
        }
    }

    @Test
    void aStoreCreatedWithAPlainFileUrlIsOpenedAsItIs() throws Exception {
        Path plain = this.directory.resolve("plain");
        try (Connection connection = DriverManager.getConnection("jdbc:h2:file:" + plain + ";WRITE_DELAY=0")) {
            insertOrders(connection, 0, 20);
        }
        try (Connection connection = DriverManager.getConnection(H2Urls.durable(H2Urls.PREALLOCATED_FILE + plain))) {
            assertThat(orders(connection)).hasSize(20);
            insertOrders(connection, 20, 20);
        }
        try (Connection connection = DriverManager.getConnection("jdbc:h2:file:" + plain)) {
            assertThat(orders(connection)).hasSize(40).endsWith("order-0039:150.00");
        }
    }

    @Test
    void rowsDeletedAndTheFileCompactedAtCloseAreGoneAndTheRestStays() throws Exception {
        String url = url("orders");
        try (Connection connection = DriverManager.getConnection(url)) {
            insertOrders(connection, 0, 500);
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate("DELETE FROM orders WHERE id < 450");
                statement.execute("CHECKPOINT SYNC");
            }
        }
        try (Connection connection = DriverManager.getConnection(url + ";DEFRAG_ALWAYS=TRUE")) {
            assertThat(orders(connection)).hasSize(50).startsWith("order-0450:150.00");
        }
        try (Connection connection = DriverManager.getConnection(url)) {
            assertThat(orders(connection)).hasSize(50).endsWith("order-0499:150.00");
        }
    }

    @Test
    void aProcessThatFindsTheFileInUseLeavesItAsItWasAndNothingAcknowledgedIsLost() throws Exception {
        String url = url("orders");
        Process writer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), H2FileWriter.class.getName(), url)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
        AtomicInteger acknowledged = new AtomicInteger(-1);
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream()))) {
                String line;
                while ((line = out.readLine()) != null) {
                    acknowledged.set(Integer.parseInt(line.trim()));
                }
            }
            catch (IOException ex) {
                // the process was killed
            }
        });
        reader.start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.get() >= 100);
            // this process opens the store again and again while the other writes: each time the file is in use
            for (int i = 0; i < 40; i++) {
                assertThatExceptionOfType(SQLException.class).isThrownBy(() -> DriverManager.getConnection(url).close())
                    .withMessageContaining("already in use");
                int seen = acknowledged.get();
                await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.get() > seen);
            }
        }
        finally {
            writer.destroyForcibly();
            writer.waitFor(30, TimeUnit.SECONDS);
            reader.join(10_000);
        }
        int lastAcknowledged = acknowledged.get();

        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT COUNT(*), MAX(id), MIN(total) FROM orders")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(2)).isGreaterThanOrEqualTo(lastAcknowledged);
            assertThat(rs.getInt(1)).isEqualTo(rs.getInt(2) + 1);
            assertThat(rs.getBigDecimal(3)).isEqualByComparingTo("150.00");
        }
    }

    @Test
    void onlyWholeZeroBlocksAtTheEndAreTakenOffTheSizeH2Sees() throws IOException {
        Path file = this.directory.resolve("blocks");
        byte[] data = new byte[3 * BLOCK];
        data[BLOCK + 17] = 1;
        // a zero block inside H2's data stays: only those at the end are extension
        data[2 * BLOCK + BLOCK - 1] = 7;
        Files.write(file, data);
        appendZeros(file, 5 * BLOCK);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            assertThat(H2PreallocatedFilePath.PreallocatedFile.endOfData(channel, channel.size()))
                .isEqualTo(3 * BLOCK);
        }
        // a file with nothing after its data, or nothing at all
        Path exact = this.directory.resolve("exact");
        Files.write(exact, data);
        Path empty = Files.createFile(this.directory.resolve("empty"));
        try (FileChannel channel = FileChannel.open(exact, StandardOpenOption.READ);
                FileChannel none = FileChannel.open(empty, StandardOpenOption.READ)) {
            assertThat(H2PreallocatedFilePath.PreallocatedFile.endOfData(channel, channel.size()))
                .isEqualTo(3 * BLOCK);
            assertThat(H2PreallocatedFilePath.PreallocatedFile.endOfData(none, 0)).isZero();
        }
    }

    /**
     * H2 writes a new chunk over the space of chunks that hold nothing live any more; the chunk that made them dead
     * must be on the device first, or a power loss could leave the last durable version pointing into space written
     * over since. A write over space H2 wrote before forces what is not forced yet; a write at the end does not.
     */
    @Test
    void aWriteOverSpaceH2WroteBeforeForcesWhatIsNotForcedYetFirst() throws Exception {
        Path path = this.directory.resolve("forced.mv.db");
        try (CountingChannel base = CountingChannel.open(path);
                H2PreallocatedFilePath.PreallocatedFile file = new H2PreallocatedFilePath.PreallocatedFile(base,
                        path.toString(), null)) {
            assertThat(file.tryLock(0, Long.MAX_VALUE, false)).isNotNull();
            file.write(ByteBuffer.wrap(new byte[BLOCK]), 0);
            file.write(ByteBuffer.wrap(new byte[BLOCK]), BLOCK);
            file.write(ByteBuffer.wrap(new byte[BLOCK]), 2 * BLOCK);
            assertThat(base.forces.get()).as("writes at the end go ahead unforced (the syncs force them)").isZero();
            file.write(ByteBuffer.wrap(new byte[BLOCK]), BLOCK);
            assertThat(base.forces.get()).as("the write over written space forced the others first").isEqualTo(1);
            file.write(ByteBuffer.wrap(new byte[BLOCK]), 3 * BLOCK);
            file.force(false);
            assertThat(base.forces.get()).isEqualTo(2);
            file.write(ByteBuffer.wrap(new byte[BLOCK]), 0);
            assertThat(base.forces.get()).as("after a sync nothing is left to force first").isEqualTo(2);
            file.truncate(2 * BLOCK);
            assertThat(base.forces.get()).as("space cut off is written over space too").isEqualTo(3);
            assertThat(file.barrierForces()).isEqualTo(2);
        }
    }

    /**
     * A sync's force runs outside H2's store lock while H2 goes on writing. A write over written space that comes
     * while that force runs, with every earlier write covered by it, waits for it to end instead of forcing the same
     * data again; one that finds a write the running force does not cover forces itself.
     */
    @Test
    void aWriteOverWrittenSpaceWaitsForTheForceRunningWhenThatCoversEveryEarlierWrite() throws Exception {
        Path path = this.directory.resolve("waits.mv.db");
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (CountingChannel base = CountingChannel.open(path);
                H2PreallocatedFilePath.PreallocatedFile file = new H2PreallocatedFilePath.PreallocatedFile(base,
                        path.toString(), null)) {
            assertThat(file.tryLock(0, Long.MAX_VALUE, false)).isNotNull();
            file.write(ByteBuffer.wrap(new byte[BLOCK]), 0);
            file.write(ByteBuffer.wrap(new byte[BLOCK]), BLOCK);
            CountDownLatch release = base.holdNextForce();
            Future<?> sync = forceHeld(threads, file, base);

            // covered by the running force: the write waits for it
            Future<?> over = writeThatWaits(threads, file, new byte[BLOCK]);
            release.countDown();
            sync.get(10, TimeUnit.SECONDS);
            over.get(10, TimeUnit.SECONDS);
            assertThat(base.forces.get()).as("the sync's force served the write over written space").isEqualTo(1);
            assertThat(file.barrierWaits()).isEqualTo(1);
            assertThat(file.barrierForces()).isZero();

            // a write at the end after the force began is not covered by it: the next write over space forces
            CountDownLatch second = base.holdNextForce();
            Future<?> nextSync = forceHeld(threads, file, base);
            file.write(ByteBuffer.wrap(new byte[BLOCK]), 2 * BLOCK);
            file.write(ByteBuffer.wrap(new byte[BLOCK]), BLOCK);
            assertThat(base.forces.get()).as("a force of its own, while the sync's still runs").isEqualTo(3);
            assertThat(file.barrierForces()).isEqualTo(1);
            second.countDown();
            nextSync.get(10, TimeUnit.SECONDS);
        }
        finally {
            threads.shutdownNow();
        }
    }

    /**
     * A write that waits for a running force lets go of the file's state meanwhile: if the file's lock is released
     * then (H2 closing the store), the write goes to the file as it is, and nothing is written ahead of it any more.
     */
    @Test
    void aWriteThatWaitedForAForceWhileTheLockWasReleasedLeavesTheFileAsWritten() throws Exception {
        Path path = this.directory.resolve("released.mv.db");
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (CountingChannel base = CountingChannel.open(path);
                H2PreallocatedFilePath.PreallocatedFile file = new H2PreallocatedFilePath.PreallocatedFile(base,
                        path.toString(), null)) {
            java.nio.channels.FileLock lock = file.tryLock(0, Long.MAX_VALUE, false);
            assertThat(lock).isNotNull();
            file.write(ByteBuffer.wrap(new byte[BLOCK]), 0);
            file.write(ByteBuffer.wrap(new byte[BLOCK]), BLOCK);
            CountDownLatch release = base.holdNextForce();
            Future<?> sync = forceHeld(threads, file, base);
            byte[] header = new byte[BLOCK];
            header[0] = 7;
            Future<?> over = writeThatWaits(threads, file, header);
            lock.release();
            assertThat(Files.size(path)).as("the zeros ahead cut off when the lock went").isEqualTo(2 * BLOCK);
            release.countDown();
            sync.get(10, TimeUnit.SECONDS);
            over.get(10, TimeUnit.SECONDS);
            assertThat(file.size()).isEqualTo(2 * BLOCK);
            assertThat(Files.size(path)).as("nothing written ahead after the lock went").isEqualTo(2 * BLOCK);
            ByteBuffer first = ByteBuffer.allocate(1);
            base.read(first, 0);
            assertThat(first.get(0)).as("the write that waited is in the file").isEqualTo((byte) 7);
        }
        finally {
            threads.shutdownNow();
        }
    }

    /** Starts a sync's force on another thread, held inside the channel's force until released; returns once it is. */
    private static Future<?> forceHeld(ExecutorService threads, H2PreallocatedFilePath.PreallocatedFile file,
            CountingChannel base) {
        int before = base.forces.get();
        Future<?> sync = threads.submit(() -> {
            file.force(false);
            return null;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> base.forces.get() == before + 1);
        return sync;
    }

    /** Writes {@code bytes} over the file's start on another thread; returns once that write waits (not done). */
    private static Future<?> writeThatWaits(ExecutorService threads, H2PreallocatedFilePath.PreallocatedFile file,
            byte[] bytes) {
        java.util.concurrent.atomic.AtomicReference<Thread> writer = new java.util.concurrent.atomic.AtomicReference<>();
        Future<?> write = threads.submit(() -> {
            writer.set(Thread.currentThread());
            file.write(ByteBuffer.wrap(bytes), 0);
            return null;
        });
        await().atMost(Duration.ofSeconds(10))
            .until(() -> writer.get() != null && writer.get().getState() == Thread.State.WAITING);
        assertThat(write).isNotDone();
        return write;
    }

    /** A file channel that counts its forces, and can hold the next one until released. */
    private static final class CountingChannel extends dev.skail.platform.DelegatingFileChannel {

        final AtomicInteger forces = new AtomicInteger();

        private final java.util.concurrent.atomic.AtomicReference<CountDownLatch> hold =
                new java.util.concurrent.atomic.AtomicReference<>();

        CountingChannel(FileChannel channel) {
            super(channel);
        }

        static CountingChannel open(Path path) throws IOException {
            return new CountingChannel(FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE));
        }

        /** The next force waits, once counted, until the latch returned is counted down. */
        CountDownLatch holdNextForce() {
            CountDownLatch latch = new CountDownLatch(1);
            this.hold.set(latch);
            return latch;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            this.forces.incrementAndGet();
            CountDownLatch latch = this.hold.getAndSet(null);
            if (latch != null) {
                try {
                    if (!latch.await(30, TimeUnit.SECONDS)) {
                        throw new IOException("the held force was never released");
                    }
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IOException(ex);
                }
            }
            this.channel.force(metaData);
        }
    }

    private String url(String name) {
        return H2Urls.durable(H2Urls.PREALLOCATED_FILE + this.directory.resolve(name) + ";FILE_LOCK=FS");
    }

    /** Orders committed one by one, each synced to the device as the store syncs its commits. */
    private static void insertOrders(Connection connection, int from, int count) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS orders (id INT PRIMARY KEY, name VARCHAR(40), "
                    + "total NUMERIC(12, 2), body VARCHAR(2000))");
        }
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO orders VALUES (?, ?, ?, ?)")) {
            for (int i = from; i < from + count; i++) {
                insert.setInt(1, i);
                insert.setString(2, String.format("order-%04d", i));
                insert.setBigDecimal(3, new BigDecimal("150.00"));
                insert.setString(4, "{\"itens\":[{\"sku\":\"A-1\",\"quantidade\":2}]}".repeat(20));
                insert.executeUpdate();
                H2GroupSync.sync(connection);
            }
        }
    }

    private static List<String> orders(Connection connection) throws SQLException {
        List<String> orders = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT name, total FROM orders ORDER BY id")) {
            while (rs.next()) {
                orders.add(rs.getString(1) + ":" + rs.getBigDecimal(2).toPlainString());
            }
        }
        return orders;
    }

    private static long h2FileSize(Connection connection) throws SQLException {
        org.h2.engine.SessionLocal session = (org.h2.engine.SessionLocal) ((org.h2.jdbc.JdbcConnection) connection)
            .getSession();
        return session.getDatabase().getStore().getMvStore().getFileStore().size();
    }

    private static long trailingZeroBytes(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] == 0) {
            end--;
        }
        return bytes.length - end;
    }

    private static boolean lastBlockHoldsData(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        for (int i = bytes.length - BLOCK; i < bytes.length; i++) {
            if (bytes[i] != 0) {
                return true;
            }
        }
        return false;
    }

    private static void appendZeros(Path file, int count) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ByteBuffer zeros = ByteBuffer.allocate(count);
            while (zeros.hasRemaining()) {
                channel.write(zeros);
            }
        }
    }

}
