package dev.skail.platform.local;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

/**
 * H2's file system {@code powerloss:}: the files of a directory a {@link PowerLossDisk} is attached to are opened
 * through that disk, any other file as it is. The embedded store's maps are opened through it as
 * {@code skail:powerloss:/path/skail-store.mv.db} (skail's own file system above it, as in production).
 */
public final class PowerLossFilePath extends FilePathWrapper {

    static final String SCHEME = "powerloss";

    /** For H2, which makes one for each path. */
    public PowerLossFilePath() {
    }

    static void register() {
        FilePath.register(new PowerLossFilePath());
    }

    /** The name by which H2 opens {@code file} through skail's file system and this one. */
    static String mapsFileName(Path file) {
        register();
        // skail's file system registered as LocalStore.open(Path) would
        dev.skail.platform.jdbc.H2PreallocatedFilePath.fileName(file);
        return "skail:" + SCHEME + ":" + file.toAbsolutePath();
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public FileChannel open(String mode) throws IOException {
        FileChannel base = getBase().open(mode);
        Path file = Path.of(getBase().toString());
        PowerLossDisk disk = PowerLossDisk.attached(file);
        return (disk != null) ? disk.wrap(file, base) : base;
    }
}
