package dev.skail.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.awaitility.Awaitility;

/** The sample application run as a separate JVM, from the test class path, so tests can kill it for real. */
final class SampleProcess implements AutoCloseable {

    private final HttpClient http = HttpClient.newHttpClient();

    private final int port;

    private final Process process;

    private SampleProcess(int port, Process process) {
        this.port = port;
        this.process = process;
    }

    static SampleProcess start(Path workDir, String... arguments) throws IOException {
        return start(workDir, List.of(), arguments);
    }

    /**
     * Starts the sample with these JVM options too (e.g. {@code -Dspring.aot.enabled=true}) and waits until its
     * health reports skail.
     */
    static SampleProcess start(Path workDir, List<String> jvmOptions, String... arguments) throws IOException {
        int port = freePort();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(SampleApplication.class.getName());
        command.add("--server.port=" + port);
        command.add("--skail.store.directory=" + workDir.resolve("store"));
        command.add("--logging.file.name=" + workDir.resolve("sample.log"));
        if (List.of(arguments).stream().noneMatch((argument) -> argument.startsWith("--sample.relatorio-cron="))) {
            // these tests run on the real clock: the daily report must not start an execution at 09:00 UTC in them
            command.add("--sample.relatorio-cron=-");
        }
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve("console.log").toFile()))
            .directory(workDir.toFile())
            .start();
        SampleProcess sample = new SampleProcess(port, process);
        Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("the sample exited with " + process.exitValue() + "; see "
                        + workDir.resolve("console.log") + ", which ends with:\n" + tail(workDir.resolve("console.log")));
            }
            return sample.healthUp();
        });
        return sample;
    }

    /** The causes at the end of a log, where a failed start says why. */
    private static String tail(Path log) throws IOException {
        List<String> lines = java.nio.file.Files.readAllLines(log);
        List<String> causes = lines.stream()
            .filter((line) -> line.contains("Exception") || line.contains("Caused by") || line.contains("ERROR"))
            .toList();
        List<String> shown = causes.isEmpty() ? lines : causes;
        return String.join("\n", shown.subList(Math.max(0, shown.size() - 20), shown.size()));
    }

    private boolean healthUp() {
        try {
            HttpResponse<String> response = get("/actuator/health");
            return response.statusCode() == 200 && response.body().contains("\"skail\"");
        }
        catch (IOException ex) {
            return false;
        }
    }

    HttpResponse<String> get(String path) throws IOException {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    HttpResponse<String> post(String path, String json) throws IOException {
        return send(HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build());
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException {
        try {
            return this.http.send(request, HttpResponse.BodyHandlers.ofString());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException(ex);
        }
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + this.port + path);
    }

    /** The port its HTTP server listens on. */
    int port() {
        return this.port;
    }

    /** The operating system's id of the process. */
    long pid() {
        return this.process.pid();
    }

    /** SIGSTOP: the whole process freezes (threads, timers, lease renewals) as in a long GC pause or a stalled VM. */
    void pause() throws IOException, InterruptedException {
        signal("-STOP");
    }

    /** SIGCONT: a paused process carries on from where it was frozen. */
    void resume() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, String.valueOf(pid())).redirectErrorStream(true).start();
        String output = new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill " + signal + " " + pid() + " failed: " + output);
        }
    }

    /** SIGKILL: no shutdown hook, no graceful stop, nothing flushed by the JVM. */
    void kill() throws InterruptedException {
        this.process.destroyForcibly();
        this.process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        if (this.process.isAlive()) {
            kill();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

}
