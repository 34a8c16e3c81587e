package dev.skail.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** Runs a fresh JVM to its end, keeping its output; what it reports is shown as it goes and logged. */
final class Jvm {

    private final PrintWriter log;

    Jvm(PrintWriter log) {
        this.log = log;
    }

    /**
     * Runs {@code java <options> -cp <classPath> <mainClass> <args>} and returns its output lines.
     * @param label shown before the lines echoed to the console
     * @param echo which lines to echo (all go to the log)
     * @throws IllegalStateException when the JVM exits with another status than 0
     */
    List<String> run(String label, List<String> options, String classPath, String mainClass, List<String> args,
            Predicate<String> echo) throws IOException, InterruptedException {
        return run(Path.of(System.getProperty("java.home")), label, options, classPath, mainClass, args, echo);
    }

    /** {@link #run(String, List, String, String, List, Predicate)} with the {@code java} of another JDK. */
    List<String> run(Path javaHome, String label, List<String> options, String classPath, String mainClass,
            List<String> args, Predicate<String> echo) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.addAll(options);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(args);
        this.log.println("$ " + String.join(" ", command).replace(classPath, "<class path>"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lines.add(line);
                this.log.println(line);
                if (echo.test(line)) {
                    System.out.println("  [" + label + "] " + line);
                }
            }
        }
        int status = process.waitFor();
        this.log.flush();
        if (status != 0) {
            lines.stream().skip(Math.max(0, lines.size() - 40)).forEach(System.out::println);
            throw new IllegalStateException(label + ": the JVM exited with status " + status + " (see above)");
        }
        return lines;
    }
}
