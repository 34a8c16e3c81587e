package dev.skail.platform;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * A writer process of the crash tests ({@code KilledStoreTests}, {@code KilledLocalStoreTests}): a main class that
 * writes orders ({@link OrderWriter}) and prints each order's id once its step is acknowledged, killed with
 * {@code kill -9} once it has acknowledged enough.
 */
public final class KilledWriter {

    private KilledWriter() {
    }

    /**
     * Starts {@code main} with {@code arguments} in a JVM of its own (this one's class path), adds each id it prints
     * to {@code acknowledged}, and kills it once {@code acknowledged} holds {@code more} ids more than when it started.
     * @param errors where the writer's error output goes (its end is in a failure's message)
     * @throws AssertionError when the writer ended first, or did not get that far in 90 seconds
     */
    public static void writeUntilKilled(Class<?> main, List<String> arguments, Path errors, Set<String> acknowledged,
            int more) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(arguments);
        int target = acknowledged.size() + more;
        Process writer = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream()))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("pedido-")) {
                        acknowledged.add(line.trim());
                    }
                }
            }
            catch (IOException ex) {
                // killed
            }
        });
        reader.start();
        try {
            await().atMost(Duration.ofSeconds(90))
                .failFast("the writer ended before it was killed", () -> !writer.isAlive())
                .until(() -> acknowledged.size() >= target);
        }
        catch (org.awaitility.core.ConditionTimeoutException | org.awaitility.core.TerminalFailureException ex) {
            throw new AssertionError(acknowledged.size() + " steps acknowledged, " + target
                    + " awaited; the writer's errors: " + tail(errors), ex);
        }
        finally {
            writer.destroyForcibly();
            writer.waitFor(30, TimeUnit.SECONDS);
            reader.join(10_000);
        }
    }

    /** The end of the writer's error output. */
    private static String tail(Path errors) {
        try {
            String text = Files.readString(errors);
            return text.substring(Math.max(0, text.length() - 2_000));
        }
        catch (IOException ex) {
            return "(unreadable: " + ex.getMessage() + ")";
        }
    }
}
