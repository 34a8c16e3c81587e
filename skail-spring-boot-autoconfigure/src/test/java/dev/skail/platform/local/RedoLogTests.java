package dev.skail.platform.local;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The local store's log: what it gives back after a crash is every whole record from the position asked for, in
 * order; a torn tail and the records of an earlier round of the file are where it ends.
 */
class RedoLogTests {

    @TempDir
    Path directory;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Applies each record by adding its text to {@code records}. */
    private static java.util.function.Consumer<ByteBuffer> appendingTo(List<String> records) {
        return (record) -> {
            byte[] read = new byte[record.remaining()];
            record.get(read);
            records.add(new String(read, StandardCharsets.UTF_8));
        };
    }

    private List<String> reopen(Path file, long from) throws Exception {
        List<String> records = new ArrayList<>();
        try (RedoLog log = RedoLog.open(file, from, appendingTo(records))) {
            return records;
        }
    }

    @Test
    void theRecordsFromAPositionOnAreGivenBackInOrderAndATornTailIsWhereTheLogEnds() throws Exception {
        Path file = this.directory.resolve("skail-store.log");
        long second;
        long torn;
        try (RedoLog log = RedoLog.open(file, -1, (record) -> {
        })) {
            second = log.append(bytes("pedido-1 criado"));
            log.append(bytes("pedido-1 passo 0: {\"valor\":150.00}"));
            torn = log.append(bytes("pedido-1 passo 1"));
            log.awaitDurable(torn);
        }
        // the last record's last bytes never reached the disk
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] { 0, 0 }), RedoLog.HEADER + torn - 2);
        }

        assertThat(reopen(file, 0)).containsExactly("pedido-1 criado", "pedido-1 passo 0: {\"valor\":150.00}");
        assertThat(reopen(file, second)).containsExactly("pedido-1 passo 0: {\"valor\":150.00}");
    }

    @Test
    void theRecordsOfTheRoundBeforeARestartAreNotGivenBack() throws Exception {
        Path file = this.directory.resolve("skail-store.log");
        long restartedAt;
        try (RedoLog log = RedoLog.open(file, -1, (record) -> {
        })) {
            log.append(bytes("round 1, a long record that the next round's first record does not cover"));
            log.append(bytes("round 1, second record"));
            restartedAt = log.nextBase();
            log.restart(restartedAt);
            log.awaitDurable(log.append(bytes("round 2")));
            // a base that an earlier round's record could state is refused
            assertThatIllegalArgumentException().isThrownBy(() -> log.restart(log.end()));
        }

        assertThat(reopen(file, restartedAt)).containsExactly("round 2");
    }

    /**
     * Writes three records in a new log in {@code file} and tears the first, as a crash may: the two after it are whole.
     * @return the log's base: where recovery finds its end
     */
    private static long threeRecordsTheFirstTorn(Path file) throws Exception {
        long base;
        long afterFirst;
        try (RedoLog log = RedoLog.open(file, -1, (record) -> {
        })) {
            base = log.end();
            afterFirst = log.append(bytes("r1 renew pedido-1"));
            log.append(bytes("r2 renew pedido-2"));
            log.awaitDurable(log.append(bytes("r3 renew pedido-3")));
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] { 0 }), RedoLog.HEADER + (afterFirst - base) - 1);
        }
        return base;
    }

    @Test
    void recordsACrashLeftBehindATornOneNeverComeBackAfterTheLogStartsAgain() throws Exception {
        Path file = this.directory.resolve("skail-store.log");
        long base = threeRecordsTheFirstTorn(file);
        long restartedAt;
        try (RedoLog log = RedoLog.open(file, base, (record) -> {
        })) {
            assertThat(log.end()).isEqualTo(base);
            // what the store does after a recovery: the maps stored, the log started again
            restartedAt = log.nextBase();
            log.restart(restartedAt);
            // a record of r1's size again, acknowledged: r2 follows it in the file
            log.awaitDurable(log.append(bytes("s1 renew pedido-9")));
        }

        assertThat(reopen(file, restartedAt)).containsExactly("s1 renew pedido-9");
    }

    @Test
    void recordsACrashLeftBehindATornOneNeverComeBackWhenTheLogGoesOnWithoutARestart() throws Exception {
        Path file = this.directory.resolve("skail-store.log");
        long base = threeRecordsTheFirstTorn(file);
        byte[] crashed = Files.readAllBytes(file);

        try (RedoLog log = RedoLog.open(file, base, (record) -> {
        })) {
            assertThat(log.end()).isEqualTo(base);
            // opening reads the log and writes nothing
            assertThat(Files.readAllBytes(file)).isEqualTo(crashed);
            // no restart (the store's was put off): a record of r1's size again, acknowledged, with r2 behind it
            log.awaitDurable(log.append(bytes("s1 renew pedido-9")));
            log.awaitDurable(log.append(bytes("s2 renew pedido-8")));
        }

        assertThat(reopen(file, base)).containsExactly("s1 renew pedido-9", "s2 renew pedido-8");
    }

    /** A loss that keeps nothing written since a file's last force. */
    private static java.util.Random keepsNothing() {
        return new java.util.Random() {

            @Override
            public int nextInt(int bound) {
                return 0;
            }

            @Override
            public boolean nextBoolean() {
                return false;
            }
        };
    }

    /**
     * A record written by a process killed before its force (the kernel keeps the page), the log opened again by the
     * next process, the record's trigger sent again and told it is recorded, then a loss of power that keeps nothing
     * unforced.
     * @param storedInTheMaps whether the killed process had stored the maps as of the record's end without forcing
     * them (the next process reads that chunk from the kernel's cache, and the log has nothing after it)
     * @param applied what the next process applies again from the log
     * @return the log as the loss left it
     */
    private Path acknowledgedAgainAfterAKillThenPowerLost(boolean storedInTheMaps, List<String> applied)
            throws Exception {
        Path files = Files.createDirectories(this.directory.resolve("disk"));
        PowerLossDisk disk = PowerLossDisk.attach(files, keepsNothing());
        Path file = files.resolve("skail-store.log");
        Path after = this.directory.resolve("after-the-loss");
        try {
            long created;
            try (RedoLog log = RedoLog.open(file, -1, (record) -> {
            }, disk::open)) {
                created = log.append(bytes("pedido-1 criado"));
            }
            try (RedoLog log = RedoLog.open(file, storedInTheMaps ? created : 0, appendingTo(applied), disk::open)) {
                log.awaitDurable(created);
                disk.cutNow(after);
            }
        }
        finally {
            disk.detach();
        }
        return after.resolve("skail-store.log");
    }

    @Test
    void recordsAKilledProcessLeftUnforcedAreOnTheDeviceOnceTheyAreAppliedAgain() throws Exception {
        List<String> applied = new ArrayList<>();

        Path lost = acknowledgedAgainAfterAKillThenPowerLost(false, applied);

        assertThat(applied).containsExactly("pedido-1 criado");
        assertThat(reopen(lost, 0)).containsExactly("pedido-1 criado");
    }

    @Test
    void recordsBeforeMapsAKilledProcessStoredButNeverForcedAreOnTheDeviceOnceTheLogOpens() throws Exception {
        List<String> applied = new ArrayList<>();

        Path lost = acknowledgedAgainAfterAKillThenPowerLost(true, applied);

        assertThat(applied).isEmpty();
        // the maps' chunk was never forced: after the loss they are older, and the log must hold the record
        assertThat(reopen(lost, 0)).containsExactly("pedido-1 criado");
    }

    @Test
    void aFirstStartCutBeforeTheLogsHeaderWasWrittenStartsANewLog() throws Exception {
        Path file = this.directory.resolve("skail-store.log");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(64 * 1024), 0);
        }

        assertThat(reopen(file, -1)).isEmpty();
        assertThat(reopen(file, 0)).isEmpty();
    }

    @Test
    void aLogThatDoesNotHoldTheMapsPositionIsRefused() throws Exception {
        Path file = this.directory.resolve("skail-store.log");
        try (RedoLog log = RedoLog.open(file, -1, (record) -> {
        })) {
            log.append(bytes("stored in the maps"));
            log.restart(log.nextBase());
        }

        assertThatIllegalStateException().isThrownBy(() -> reopen(file, 3)).withMessageContaining("belongs with the maps");
        assertThatIllegalStateException().isThrownBy(() -> reopen(this.directory.resolve("missing.log"), 4_096))
            .withMessageContaining("missing or empty");
    }
}
