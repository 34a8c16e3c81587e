package dev.skail.sample;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several instances on one PostgreSQL, proven with real processes (issue 10, item 8): three instances of the sample
 * share one store and run 1,000 executions (delays, events fired before and after the wait, a payment gateway that
 * fails before it answers, compensations) while one instance is killed with {@code kill -9} and another is frozen
 * with {@code kill -STOP} past its lease, then thawed.
 * <p>
 * What a user sees afterwards, through the HTTP API and the effects each instance journaled: every execution
 * completed with the result its input calls for; no step recorded twice; no execution run by two instances at once
 * (the attempts of an execution, read from its history, never overlap in time); and the effects that ran more often
 * than the history records are bounded by what the two disturbed instances had in flight (their
 * {@code skail.worker.concurrency}).
 */
class ScaleOutTests {

    private static final JsonMapper json = JsonMapper.shared();

    private static final int EXECUTIONS = 1000;

    private static final int CONCURRENCY = 4;

    private static final Duration LEASE = Duration.ofSeconds(2);

    private static final String VERSION = "vendas/v1.0.0";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // the instances' logs and journals stay when it fails
    Path workDir;

    private final Set<String> lateEventsFired = ConcurrentHashMap.newKeySet();

    @Test
    void threeInstancesCompleteEveryExecutionOnceWhileOneIsKilledAndAnotherIsPausedPastItsLease() throws Exception {
        Instant began = Instant.now();
        String store = TestPostgres.newDatabase("scaleout");
        List<Order> orders = orders();
        Map<String, Path> journals = new LinkedHashMap<>();
        List<SampleProcess> running = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            // three instances, each with its own work directory and journal, all starting at once on the empty
            // database: the migrations take turns under an advisory lock
            Map<String, Future<SampleProcess>> starting = new LinkedHashMap<>();
            for (String name : List.of("steady", "killed", "paused")) {
                Path dir = Files.createDirectories(this.workDir.resolve(name));
                journals.put(name, dir.resolve("effects.log"));
                starting.put(name, pool.submit(() -> SampleProcess.start(dir, arguments(store, name,
                        dir.resolve("effects.log")))));
            }
            Map<String, SampleProcess> instances = new LinkedHashMap<>();
            Exception startFailure = null;
            for (Map.Entry<String, Future<SampleProcess>> start : starting.entrySet()) {
                try {
                    SampleProcess instance = start.getValue().get();
                    running.add(instance);
                    instances.put(start.getKey(), instance);
                }
                catch (ExecutionException ex) {
                    startFailure = (startFailure != null) ? startFailure : ex;
                }
            }
            if (startFailure != null) {
                throw startFailure;
            }
            SampleProcess killed = instances.get("killed");
            SampleProcess paused = instances.get("paused");
            SampleProcess steady = instances.get("steady");
            Instant started = Instant.now();

            // 1,000 triggers spread over the three instances; half the events fired right after their trigger
            List<SampleProcess> all = List.of(killed, paused, steady);
            AtomicInteger firedBeforeTheWait = new AtomicInteger();
            List<Callable<Void>> triggers = new ArrayList<>();
            for (int i = 0; i < orders.size(); i++) {
                Order order = orders.get(i);
                SampleProcess instance = all.get(i % all.size());
                triggers.add(() -> {
                    trigger(instance, order, firedBeforeTheWait);
                    return null;
                });
            }
            for (Future<Void> done : pool.invokeAll(triggers)) {
                done.get();
            }
            Instant triggered = Instant.now();

            // kill -9 one instance while it runs executions
            awaitProgress(steady, orders, Duration.ofSeconds(60),
                    () -> completed(steady) >= EXECUTIONS / 5 && busy(killed) >= CONCURRENCY / 2);
            killed.kill();
            long completedAtKill = completed(steady);
            int heldAtKill = held(store, "killed");

            // freeze another one while it runs executions, until the others took over all it held (past its lease)
            awaitProgress(steady, orders, Duration.ofSeconds(60),
                    () -> completed(steady) >= completedAtKill + EXECUTIONS / 10 && busy(paused) >= CONCURRENCY / 2);
            long completedAtPause = completed(steady);
            paused.pause();
            Instant pausedAt = Instant.now();
            int heldAtPause = held(store, "paused");
            awaitProgress(steady, orders, Duration.ofSeconds(90),
                    () -> Instant.now().isAfter(pausedAt.plus(LEASE.multipliedBy(2)))
                            && completed(steady) >= completedAtPause + EXECUTIONS / 20 && held(store, "paused") == 0);
            Duration pausedFor = Duration.between(pausedAt, Instant.now());
            paused.resume();
            // thawed, it finds the leases it held taken over and says so (when its deliveries had not ended at once)
            Path pausedLog = this.workDir.resolve("paused").resolve("sample.log");

            awaitProgress(steady, orders, Duration.ofSeconds(150), () -> completed(steady) == EXECUTIONS);
            Instant allCompleted = Instant.now();
            long leasesLost = Files.readAllLines(pausedLog).stream()
                .filter((line) -> line.contains("lost the lease") || line.contains("abandoned"))
                .count();

            // what the API and the journals show
            Map<String, Map<String, Integer>> effectsByInstance = new LinkedHashMap<>();
            for (Map.Entry<String, Path> journal : journals.entrySet()) {
                effectsByInstance.put(journal.getKey(), effects(journal.getValue()));
            }
            Tally tally = new Tally();
            try {
                for (Order order : orders) {
                    verify(steady, order, effectsByInstance, tally);
                }
            }
            finally {
                System.out.printf("ScaleOutTests: %d executions (%d processarPedido, %d confirmarEntrega) on 3 "
                        + "instances (concurrency %d, lease %s); started in %d ms, triggered in %d ms, all completed %d "
                        + "ms after the first trigger (%d ms in all with the checks)%n",
                        EXECUTIONS, orders.stream().filter((o) -> o.recebedor() == null).count(),
                        orders.stream().filter((o) -> o.recebedor() != null).count(), CONCURRENCY, LEASE,
                        Duration.between(began, started).toMillis(), Duration.between(started, triggered).toMillis(),
                        Duration.between(started, allCompleted).toMillis(),
                        Duration.between(began, Instant.now()).toMillis());
                System.out.printf("ScaleOutTests: killed with %d completed and %d executions held; paused with %d "
                        + "completed and %d held, for %d ms (its log lines on leases lost: %d); events fired before "
                        + "the wait: %d, after: %d%n", completedAtKill, heldAtKill, completedAtPause, heldAtPause,
                        pausedFor.toMillis(), leasesLost, firedBeforeTheWait.get(), this.lateEventsFired.size());
                System.out.printf("ScaleOutTests: steps: %d; attempts: %d (%d failed, %d function attempts); effects "
                        + "journaled per instance: %s; duplicate effects: %s (with a line in the killed instance's "
                        + "journal: %d, in the paused one's: %d, elsewhere: %d); overlapping attempts: %d%n",
                        tally.steps, tally.attempts, tally.failedAttempts, tally.functionAttempts,
                        totals(effectsByInstance), tally.duplicatesByEffect, tally.duplicatesOnKilled,
                        tally.duplicatesOnPaused, tally.duplicatesElsewhere.size(), tally.overlaps.size());
                tally.overlaps.forEach(System.out::println);
                tally.duplicatesElsewhere.forEach(System.out::println);
            }

            assertThat(tally.overlaps).as("executions run by two instances at once (overlapping attempts)").isEmpty();
            assertThat(tally.duplicatesElsewhere)
                .as("effects run twice where neither the killed nor the paused instance ran them")
                .isEmpty();
            assertThat(heldAtKill).as("executions the killed instance held").isBetween(1, CONCURRENCY);
            assertThat(heldAtPause).as("executions the paused instance held").isBetween(1, CONCURRENCY);
            assertThat(tally.duplicatesOnKilled).as("effects run again after the kill: at most what was in flight")
                .isLessThanOrEqualTo(heldAtKill);
            assertThat(tally.duplicatesOnPaused).as("effects run again after the pause: at most what was in flight")
                .isLessThanOrEqualTo(heldAtPause);
            assertThat(firedBeforeTheWait.get()).as("events fired before their execution waited for them")
                .isPositive();
            assertThat(this.lateEventsFired).as("events fired once their execution waited").isNotEmpty();
            assertThat(effectsByInstance.values()).as("every instance ran effects")
                .allSatisfy((effects) -> assertThat(effects).isNotEmpty());
        }
        finally {
            pool.shutdownNow();
            for (SampleProcess instance : running) {
                instance.close();
            }
        }
    }

    /** Each order's inputs and the result they call for. */
    private static List<Order> orders() {
        List<Order> orders = new ArrayList<>();
        for (int i = 0; i < EXECUTIONS; i++) {
            String pedidoId = "\"" + UUID.randomUUID() + "\"";
            if (i % 4 == 3) {
                String recebedor = "Maria " + i;
                orders.add(new Order("entrega-" + i, "confirmarEntrega", "[" + pedidoId + "]", "ENTREGUE a " + recebedor,
                        List.of("despacharPedido", "EVENT", "registrarEntrega"), recebedor, (i / 4) % 2 == 0));
            }
            else if (i % 50 == 6) {
                // the gateway never answers: 9 failed attempts, then the compensation
                orders.add(new Order("pedido-" + i, "processarPedido", "[" + pedidoId + ", 666.00]", "PENDENTE",
                        List.of("reservarEstoque", "DELAY", "cobrarCartao", "liberarEstoque",
                                "marcarPedidoComoPendente"),
                        null, false));
            }
            else if (i % 20 == 2) {
                orders.add(new Order("pedido-" + i, "processarPedido", "[" + pedidoId + ", 1500.00]", "RECUSADO",
                        List.of("reservarEstoque", "DELAY", "cobrarCartao", "liberarEstoque"), null, false));
            }
            else {
                orders.add(new Order("pedido-" + i, "processarPedido", "[" + pedidoId + ", 10.00]", "CONFIRMADO",
                        List.of("reservarEstoque", "DELAY", "cobrarCartao", "confirmarPedido"), null, false));
            }
        }
        return orders;
    }

    private static String[] arguments(String store, String name, Path journal) {
        return new String[] { "--skail.store.url=" + store, "--skail.instance-id=scaleout-" + name,
                "--skail.worker.lease-duration=" + LEASE.toSeconds() + "s",
                "--skail.worker.concurrency=" + CONCURRENCY, "--skail.worker.poll-interval=100ms",
                "--skail.retry.backoff.initial=100ms", "--skail.retry.backoff.max=1s",
                "--sample.journal=" + journal, "--sample.latency=50ms", "--sample.gateway-failures=2",
                "--sample.prazo-confirmacao=1s" };
    }

    private static void trigger(SampleProcess instance, Order order, AtomicInteger firedBeforeTheWait)
            throws IOException {
        HttpResponse<String> triggered = instance.post("/trigger/" + VERSION + "/" + order.function() + "/"
                + order.taskId(), order.arguments());
        assertThat(triggered.statusCode()).as("trigger of %s: %s", order.taskId(), triggered.body()).isEqualTo(202);
        if (order.earlyEvent()) {
            HttpResponse<String> fired = fire(instance, order);
            // still PENDING when the event was kept: the function had not even started, let alone reached the wait
            if ("PENDING".equals(json.readTree(fired.body()).get("status").asString())) {
                firedBeforeTheWait.incrementAndGet();
            }
        }
    }

    private static HttpResponse<String> fire(SampleProcess instance, Order order) throws IOException {
        HttpResponse<String> fired = instance.post("/api/v1/fire/" + VERSION + "/" + order.taskId() + "/entregue",
                "\"" + order.recebedor() + "\"");
        assertThat(fired.statusCode()).as("fire at %s: %s", order.taskId(), fired.body()).isEqualTo(202);
        return fired;
    }

    /**
     * Waits for a condition while firing the events of the executions that wait for one (those not fired early);
     * fails at once if an execution failed.
     */
    private void awaitProgress(SampleProcess steady, List<Order> orders, Duration atMost, Callable<Boolean> condition) {
        Map<String, Order> byId = new HashMap<>();
        orders.forEach((order) -> byId.put(order.taskId(), order));
        Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(250)).until(() -> {
            fireLateEvents(steady, byId);
            long failed = count(steady, "FAILED");
            assertThat(failed).as("FAILED executions: %s", steady.get("/api/v1/executions?status=FAILED").body())
                .isZero();
            return condition.call();
        });
    }

    private void fireLateEvents(SampleProcess steady, Map<String, Order> byId) throws IOException {
        for (int page = 0;; page++) {
            JsonNode waiting = json.readTree(steady
                .get("/api/v1/executions?status=WAITING&function=confirmarEntrega&size=200&page=" + page)
                .body());
            for (JsonNode execution : waiting.get("items")) {
                Order order = byId.get(execution.get("taskId").asString());
                if (order != null && !order.earlyEvent() && this.lateEventsFired.add(order.taskId())) {
                    fire(steady, order);
                }
            }
            if (!waiting.get("hasMore").asBoolean()) {
                return;
            }
        }
    }

    /**
     * How many executions an instance holds a lease on, read from the store: what it has in flight. A precondition
     * of the test (the disturbances must catch work in flight), not something a user is meant to look at.
     */
    private static int held(String store, String instance) throws SQLException {
        try (Connection connection = DriverManager.getConnection(store);
                PreparedStatement statement = connection.prepareStatement("SELECT COUNT(*) FROM skail_execution "
                        + "WHERE status = 'RUNNING' AND lease_owner = ?")) {
            statement.setString(1, "scaleout-" + instance);
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getInt(1);
            }
        }
    }

    private static long completed(SampleProcess steady) throws IOException {
        return count(steady, "COMPLETED");
    }

    private static long count(SampleProcess instance, String status) throws IOException {
        JsonNode executions = json.readTree(instance.get("/actuator/skail").body()).get("executions");
        JsonNode count = executions.get(status);
        return (count != null) ? count.asLong() : 0;
    }

    private static int busy(SampleProcess instance) throws IOException {
        return json.readTree(instance.get("/actuator/skail").body()).get("worker").get("busy").asInt();
    }

    /** Checks one execution's result, steps and attempts, and counts its effects against its recorded attempts. */
    private static void verify(SampleProcess steady, Order order, Map<String, Map<String, Integer>> effectsByInstance,
            Tally tally) throws IOException {
        String body = steady.get("/api/v1/executions/" + order.taskId() + "/history").body();
        JsonNode history = json.readTree(body);
        JsonNode execution = history.get("execution");
        assertThat(execution.get("status").asString()).as("status of %s", order.taskId()).isEqualTo("COMPLETED");
        assertThat(execution.get("result").asString()).as("result of %s", order.taskId()).isEqualTo(order.expected());

        // each step once, in the order the function reaches them
        List<String> steps = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        List<Interval> intervals = new ArrayList<>();
        Map<String, Integer> recordedRuns = new HashMap<>();
        for (JsonNode step : history.get("steps")) {
            String kind = step.get("kind").asString();
            String name = step.get("name").asString();
            steps.add("COMMAND".equals(kind) ? name : kind);
            positions.add(step.get("position").asInt());
            int succeeded = 0;
            for (JsonNode attempt : step.get("attempts")) {
                intervals.add(Interval.of(name + "#" + attempt.get("functionAttempt").asInt() + "."
                        + attempt.get("number").asInt(), attempt));
                tally.attempts++;
                if ("SUCCEEDED".equals(attempt.get("outcome").asString())) {
                    succeeded++;
                }
                else {
                    tally.failedAttempts++;
                }
            }
            assertThat(succeeded).as("succeeded attempts of step %s of %s", name, order.taskId()).isLessThanOrEqualTo(1);
            if ("COMMAND".equals(kind)) {
                recordedRuns.merge(name, succeeded, Integer::sum);
            }
        }
        tally.steps += steps.size();
        assertThat(steps).as("steps of %s", order.taskId()).containsExactlyElementsOf(order.steps());
        assertThat(positions).as("positions of %s", order.taskId()).doesNotHaveDuplicates().isSorted();
        for (JsonNode attempt : history.get("functionAttempts")) {
            intervals.add(Interval.of("function#" + attempt.get("number").asInt(), attempt));
            tally.functionAttempts++;
        }

        // one runner at a time: no attempt starts before the previous one ended
        intervals.sort(Comparator.comparing(Interval::startedAt).thenComparing(Interval::endedAt));
        for (int i = 1; i < intervals.size(); i++) {
            Interval previous = intervals.get(i - 1);
            Interval next = intervals.get(i);
            if (next.startedAt().isBefore(previous.endedAt())) {
                tally.overlaps.add(order.taskId() + ": " + previous + " overlaps " + next + "; history: " + body);
            }
        }

        // effects beyond the recorded attempts ran where an instance was killed or paused
        for (String effect : new HashSet<>(order.steps())) {
            if (effect.equals(effect.toUpperCase(java.util.Locale.ROOT))) {
                continue; // DELAY, EVENT: no effect of their own
            }
            int recorded = recordedRuns.getOrDefault(effect, 0);
            int runs = 0;
            Map<String, Integer> runsByInstance = new TreeMap<>();
            for (Map.Entry<String, Map<String, Integer>> journal : effectsByInstance.entrySet()) {
                int here = journal.getValue().getOrDefault(order.taskId() + " " + effect, 0);
                runs += here;
                if (here > 0) {
                    runsByInstance.put(journal.getKey(), here);
                }
            }
            assertThat(runs).as("runs of %s of %s (recorded %d)", effect, order.taskId(), recorded)
                .isGreaterThanOrEqualTo(recorded);
            if (runs > recorded) {
                tally.duplicatesByEffect.merge(effect, runs - recorded, Integer::sum);
                String duplicate = order.taskId() + " " + effect + " " + runsByInstance;
                if (runsByInstance.containsKey("killed")) {
                    tally.duplicatesOnKilled++;
                }
                else if (runsByInstance.containsKey("paused")) {
                    tally.duplicatesOnPaused++;
                }
                else {
                    tally.duplicatesElsewhere.add(duplicate);
                }
                assertThat(runs - recorded).as("extra runs of %s", duplicate).isEqualTo(1);
            }
        }
    }

    private static Map<String, Integer> effects(Path journal) throws IOException {
        Map<String, Integer> counts = new HashMap<>();
        if (Files.exists(journal)) {
            for (String line : Files.readAllLines(journal)) {
                counts.merge(line, 1, Integer::sum);
            }
        }
        return counts;
    }

    private static Map<String, Integer> totals(Map<String, Map<String, Integer>> effectsByInstance) {
        Map<String, Integer> totals = new LinkedHashMap<>();
        effectsByInstance.forEach((name, effects) -> totals.put(name,
                effects.values().stream().mapToInt(Integer::intValue).sum()));
        return totals;
    }

    /**
     * An execution to run.
     *
     * @param taskId its id
     * @param function the function
     * @param arguments the trigger's body
     * @param expected the result it must end with
     * @param steps the steps it must record, in order: a command's name, or the kind of the step
     * @param recebedor the payload of its {@code entregue} event, for {@code confirmarEntrega}
     * @param earlyEvent whether its event is fired right after the trigger, rather than once it waits
     */
    private record Order(String taskId, String function, String arguments, String expected, List<String> steps,
            @Nullable String recebedor, boolean earlyEvent) {
    }

    /** An attempt's time span. */
    private record Interval(String attempt, Instant startedAt, Instant endedAt) {

        static Interval of(String attempt, JsonNode node) {
            return new Interval(attempt, Instant.parse(node.get("startedAt").asString()),
                    Instant.parse(node.get("endedAt").asString()));
        }
    }

    /** What the checks counted. */
    private static final class Tally {

        int steps;

        int attempts;

        int failedAttempts;

        int functionAttempts;

        int duplicatesOnKilled;

        int duplicatesOnPaused;

        final Map<String, Integer> duplicatesByEffect = new TreeMap<>();

        final List<String> duplicatesElsewhere = new ArrayList<>();

        final List<String> overlaps = new ArrayList<>();
    }
}
