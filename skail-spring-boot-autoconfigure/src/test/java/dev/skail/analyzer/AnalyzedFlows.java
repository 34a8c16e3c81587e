package dev.skail.analyzer;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import dev.skail.Skail;
import dev.skail.SkailAllowNondeterminism;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.SkailTask;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

/**
 * Functions the analyzer tests read. Each line that must be found ends with a comment naming its category; the
 * tests find the line numbers from this source file.
 */
@SuppressWarnings("unused")
public class AnalyzedFlows extends AnalyzedBase {

    private final Clock clock = Clock.systemUTC();

    private RestTemplate restTemplate;

    private RestClient restClient;

    private JdbcTemplate jdbcTemplate;

    private DataSource dataSource;

    // ------------------------------------------------------------------ clock

    @SkailFunction
    public long currentTimeMillis() {
        return System.currentTimeMillis(); // finding: CLOCK
    }

    @SkailFunction
    public long nanoTime() {
        return System.nanoTime(); // finding: CLOCK
    }

    @SkailFunction
    public Instant instantNow() {
        return Instant.now(); // finding: CLOCK
    }

    @SkailFunction
    public LocalDateTime localDateTimeNow() {
        return LocalDateTime.now(); // finding: CLOCK
    }

    @SkailFunction
    public Date newDate() {
        return new Date(); // finding: CLOCK
    }

    @SkailFunction
    public Instant injectedClock() {
        return this.clock.instant(); // finding: CLOCK
    }

    // ------------------------------------------------------------------ randomness

    @SkailFunction
    public UUID randomUuid() {
        return UUID.randomUUID(); // finding: RANDOM
    }

    @SkailFunction
    public int random() {
        return new Random().nextInt(); // finding: RANDOM
    }

    @SkailFunction
    public int threadLocalRandom() {
        return ThreadLocalRandom.current().nextInt(); // finding: RANDOM
    }

    @SkailFunction
    public double mathRandom() {
        return Math.random(); // finding: RANDOM
    }

    @SkailFunction
    public int secureRandom() {
        return new SecureRandom().nextInt(); // finding: RANDOM
    }

    // ------------------------------------------------------------------ environment

    @SkailFunction
    public String getenv() {
        return System.getenv("HOME"); // finding: ENVIRONMENT
    }

    @SkailFunction
    public String getProperty() {
        return System.getProperty("user.name"); // finding: ENVIRONMENT
    }

    // ------------------------------------------------------------------ I/O

    @SkailFunction
    public List<String> readFile() throws IOException {
        return Files.readAllLines(Path.of("/etc/hostname")); // finding: IO
    }

    @SkailFunction
    public String restTemplate() {
        return this.restTemplate.getForObject("http://example.com", String.class); // finding: IO
    }

    @SkailFunction
    public String restClient() {
        return this.restClient.get().uri("http://example.com").retrieve().body(String.class); // finding: IO
    }

    @SkailFunction
    public Integer jdbcTemplate() {
        return this.jdbcTemplate.queryForObject("select 1", Integer.class); // finding: IO
    }

    @SkailFunction
    public boolean jdbc() throws Exception {
        Connection connection = this.dataSource.getConnection(); // finding: IO
        return connection.isValid(1); // finding: IO
    }

    @SkailFunction
    public String socket() throws IOException {
        return new java.net.Socket("localhost", 80).toString(); // finding: IO
    }

    // ------------------------------------------------------------------ sleep

    @SkailFunction
    public void sleep() throws InterruptedException {
        Thread.sleep(1000); // finding: SLEEP
    }

    // ------------------------------------------------------------------ concurrency

    @SkailFunction
    public void thread() {
        new Thread(() -> { }).start(); // finding: CONCURRENCY
    }

    @SkailFunction
    public void executor() {
        Executors.newFixedThreadPool(2); // finding: CONCURRENCY
    }

    @SkailFunction
    public String completableFuture() {
        return CompletableFuture.supplyAsync(() -> "x").join(); // finding: CONCURRENCY
    }

    @SkailFunction
    public long parallelStream(List<String> items) {
        return items.parallelStream().count(); // finding: CONCURRENCY
    }

    // ------------------------------------------------------------------ reached through the function's class

    @SkailFunction
    public String throughAHelper() {
        return helper();
    }

    private String helper() {
        return Long.toString(System.currentTimeMillis()); // finding: CLOCK
    }

    @SkailFunction
    public List<String> throughALambda(List<String> items) {
        return items.stream().map((item) -> item + UUID.randomUUID()).toList(); // finding: RANDOM
    }

    @SkailFunction
    public List<String> shuffle(List<String> items) {
        java.util.Collections.shuffle(items); // finding: RANDOM
        return items;
    }

    @SkailFunction
    public long throughAnInheritedHelper() {
        return stamp();
    }

    @SkailFunction
    public String pathsArePure(String name) {
        return Path.of("/data", name).getFileName().toString();
    }

    @SkailFunction
    public List<UUID> throughAMethodReference(List<String> items) {
        return items.stream().map((item) -> UUID.nameUUIDFromBytes(item.getBytes())).toList();
    }

    // ------------------------------------------------------------------ no finding

    @SkailFunction
    public String pureLogic(List<String> items, Map<String, Integer> prices) {
        List<String> selected = new ArrayList<>();
        for (String item : items) {
            if (prices.getOrDefault(item, 0) > 10) {
                selected.add(item.toUpperCase());
            }
        }
        String joined = selected.stream().sorted().map(String::trim).collect(Collectors.joining(","));
        StringBuilder text = new StringBuilder(joined);
        text.append(URI.create("https://example.com/" + items.size()));
        return text.toString();
    }

    @SkailFunction
    public String stepsAndPrimitives(String id) {
        String reserved = reservar(id);
        Skail.delay(Duration.ofHours(1));
        Instant now = Skail.now();
        UUID uuid = Skail.randomUUID();
        SkailTask<String> a = Skail.async(() -> reservar(id + "a"));
        SkailTask<String> b = Skail.async(() -> reservar(id + "b"));
        Skail.whenAll(a, b);
        String approval = Skail.waitForEvent("approval", String.class);
        if (approval == null) {
            throw new IllegalStateException("no approval for " + id);
        }
        return reserved + now + uuid + a.await() + b.await();
    }

    @SkailCommand
    public String reservar(String id) {
        // a command may do anything: it runs once per recorded result
        return id + System.currentTimeMillis() + UUID.randomUUID();
    }

    @SkailFunction
    @SkailAllowNondeterminism(reason = "reads a constant of the process")
    public String exempt() {
        return System.getProperty("java.version");
    }

    @SkailFunction
    public String exemptHelper() {
        return javaVersion();
    }

    @SkailAllowNondeterminism(reason = "reads a constant of the process")
    private String javaVersion() {
        return System.getProperty("java.version");
    }
}
