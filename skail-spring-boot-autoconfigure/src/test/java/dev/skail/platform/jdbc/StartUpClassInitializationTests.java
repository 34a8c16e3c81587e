package dev.skail.platform.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CyclicBarrier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up's background pre-initialization opens H2 in memory while the application's thread opens the store:
 * both initialize H2's classes, and must never wait for each other for ever. Each round loads H2 and skail's store
 * classes afresh (a class loader of their own, so that no class is initialized yet) and starts both threads at once.
 * A start-up hung this way in the benchmark (the main thread registering skail's file system, the pre-initialization in
 * H2's {@code FilePath}); before the fix, every round of the first test hung. These rounds let both threads into H2 at
 * once, which the store no longer does ({@code PreloadGate}, see {@link PreloadGateTests}): they check that H2's
 * classes, with skail's file system, can be initialized from two threads at once whatever else does it.
 */
class StartUpClassInitializationTests {

    private static final int ROUNDS = 20;

    @Test
    void registeringTheStoresFileSystemWhileH2InitializesItsOwnNeverHangs() throws Exception {
        List<String> hung = rounds((loader, directory) -> () -> Class.forName("org.h2.store.fs.FilePath", true, loader),
                (loader, directory) -> () -> durable(loader, directory));
        assertThat(hung).as("rounds whose threads still waited after 10 s").isEmpty();
    }

    @Test
    void thePreloadingAndTheStoresFirstConnectionOnlyMeetingInH2NeverHang(@TempDir Path directory) throws Exception {
        List<String> hung = rounds((loader, round) -> () -> loader.loadClass(StorePreloading.class.getName())
            .getMethod("preload", boolean.class)
            .invoke(null, true), (loader, round) -> () -> {
                String url = (String) durable(loader, round);
                Driver driver = (Driver) loader.loadClass("org.h2.Driver").getConstructor().newInstance();
                try (Connection connection = driver.connect(url, new Properties());
                        Statement statement = connection.createStatement()) {
                    statement.execute("CREATE TABLE pedido(id VARCHAR PRIMARY KEY, valor NUMERIC(12, 2), "
                            + "criado TIMESTAMP WITH TIME ZONE)");
                    statement.execute("INSERT INTO pedido VALUES ('pedido-1', 150.00, "
                            + "TIMESTAMP WITH TIME ZONE '2026-01-01 09:30:00-03:00')");
                    try (ResultSet rs = statement.executeQuery("SELECT valor FROM pedido")) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getBigDecimal(1)).isEqualByComparingTo("150.00");
                    }
                }
                return null;
            });
        assertThat(hung).as("rounds whose threads still waited after 10 s").isEmpty();
    }

    private static Object durable(ClassLoader loader, Path directory) throws Exception {
        return loader.loadClass(H2Urls.class.getName())
            .getMethod("durable", String.class)
            .invoke(null, H2Urls.PREALLOCATED_FILE + directory.resolve("skail") + ";FILE_LOCK=FS");
    }

    private List<String> rounds(Side background, Side main) throws Exception {
        URL[] classPath = { location(H2Urls.class), location(org.h2.Driver.class),
                location(com.zaxxer.hikari.HikariConfig.class), location(org.slf4j.Logger.class),
                location(org.apache.commons.logging.LogFactory.class) };
        List<String> hung = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            Path directory = java.nio.file.Files.createTempDirectory("skail-class-init");
            try (URLClassLoader loader = new URLClassLoader(classPath, ClassLoader.getPlatformClassLoader())) {
                CyclicBarrier together = new CyclicBarrier(2);
                List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
                Thread first = start("background-preinit", together, background.of(loader, directory), failures);
                Thread second = start("main", together, main.of(loader, directory), failures);
                first.join(10_000);
                second.join(10_000);
                if (first.isAlive() || second.isAlive()) {
                    hung.add("round " + round + ": " + state(first) + "; " + state(second));
                    // the threads of a hung round never end: one is enough to tell
                    return hung;
                }
                assertThat(failures).as("round " + round).isEmpty();
            }
        }
        return hung;
    }

    private static Thread start(String name, CyclicBarrier together, Work work, List<Throwable> failures) {
        Thread thread = new Thread(() -> {
            try {
                together.await();
                work.run();
            }
            catch (InvocationTargetException ex) {
                failures.add(ex.getCause());
            }
            catch (Throwable ex) {
                failures.add(ex);
            }
        }, name);
        // a thread that hangs must not keep the test JVM alive
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static String state(Thread thread) {
        StackTraceElement[] stack = thread.getStackTrace();
        return thread.getName() + " " + thread.getState() + ((stack.length > 0) ? " at " + stack[0] : "");
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    @FunctionalInterface
    interface Work {

        Object run() throws Exception;
    }

    @FunctionalInterface
    interface Side {

        Work of(ClassLoader loader, Path directory);
    }
}
