package dev.skail.platform.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.StepRow;
import dev.skail.platform.Suspend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Claiming due work, on each database the store runs on (subclasses): one statement per poll, at most the limit,
 * never what the runner runs already, each execution once however many stores poll at once, in turns between new
 * executions, wake-ups and expired leases; and a schema two stores create at once.
 */
abstract class ClaimingTests {

    private final List<JdbcExecutionStore> stores = new ArrayList<>();

    private final List<HikariDataSource> pools = new ArrayList<>();

    /** The database of the tests. */
    abstract SqlDialect dialect();

    /** The JDBC URL of the test's database as it is now (see {@link #freshDatabase()}). */
    abstract String url();

    /** Makes {@link #url()} name a new, empty database (or schema). */
    abstract void freshDatabase();

    /** Settings of a pool on {@link #url()}, e.g. the schema. */
    void configure(HikariDataSource pool) {
    }

    /** A pool of its own on the test's database, as another instance would have. */
    HikariDataSource pool() {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url());
        pool.setMaximumPoolSize(4);
        configure(pool);
        this.pools.add(pool);
        return pool;
    }

    /**
     * How many statements one claim runs: one on PostgreSQL (a round trip); on H2 the read of the due work, then the
     * update of what it found (see {@link H2JdbcCustomization}).
     */
    int statementsPerClaim() {
        return 1;
    }

    /** A store on its own pool, its schema created: another instance on the same database. */
    JdbcExecutionStore instance() {
        JdbcExecutionStore store = store(pool());
        store.initialize();
        return store;
    }

    JdbcExecutionStore store(DataSource dataSource) {
        JdbcExecutionStore store = new JdbcExecutionStore(dataSource, dialect(),
                new StoreRetry(dialect(), 3, Duration.ofMillis(1), Duration.ofMillis(5)), null);
        this.stores.add(store);
        return store;
    }

    @AfterEach
    void closeStores() throws Exception {
        for (JdbcExecutionStore store : this.stores) {
            store.close();
        }
        this.pools.forEach(HikariDataSource::close);
    }

    @Test
    void aPollIsOneRoundOfStatementsThatClaimsAtMostTheLimitAndNeverWhatTheRunnerRuns() throws Exception {
        AtomicInteger statements = new AtomicInteger();
        JdbcExecutionStore store = countingStore(statements);
        for (int i = 1; i <= 6; i++) {
            store.create(execution("t-" + i, 0));
        }

        statements.set(0);
        List<Lease> first = store.claimDue("vendas", "v1", "a", 3, 100, 30_100, Set.of("t-1", "t-2"));

        assertThat(statements).hasValue(statementsPerClaim());
        assertThat(first).hasSize(3).extracting(Lease::taskId).doesNotContain("t-1", "t-2");

        statements.set(0);
        List<Lease> second = store.claimDue("vendas", "v1", "a", 10, 100, 30_100, Set.of("t-1"));

        assertThat(statements).hasValue(statementsPerClaim());
        assertThat(second).extracting(Lease::taskId)
            .containsExactlyInAnyOrderElementsOf(remaining(Set.of("t-1"), first, 6));
        assertThat(store.find("t-1").orElseThrow().status()).isEqualTo(ExecutionStatus.PENDING);
    }

    /** Whether a claim returns the history of an execution's first delivery (PostgreSQL), or never (H2). */
    boolean claimTellsFirstHistories() {
        return false;
    }

    @Test
    void aClaimTellsTheHistoryOfAnExecutionWithNoStepYetExactlyAsItIsReadAndNoneOfAnExecutionWithAHistory() throws Exception {
        AtomicInteger statements = new AtomicInteger();
        JdbcExecutionStore store = countingStore(statements);
        // money with a scale and a time with an offset, as a user's arguments are kept
        String arguments = "[{\"amount\":150.00,\"at\":\"2026-12-06T10:15:30-03:00\",\"items\":[\"A-1\",\"B-2\"]}]";
        store.create(new ExecutionRow("first", "vendas", "v1", "processarPedido", arguments, ExecutionStatus.PENDING,
                null, null, 1, 0, 0L, 0, 0, null), List.of());
        store.create(execution("evented", 0));
        store.fire("evented", "pagamentoAprovado", "{\"amount\":150.00}", "e-1", 1);
        store.create(execution("handedBack", 0));
        store.create(execution("retried", 0));
        store.create(execution("expired", 0));
        List<Lease> earlier = store.claimDue("vendas", "v1", "a", 10, 5, 60, Set.of("first", "evented"));
        assertThat(earlier).extracting(Lease::taskId).containsExactlyInAnyOrder("handedBack", "retried", "expired");
        Lease handedBack = earlier.stream().filter((l) -> l.taskId().equals("handedBack")).findFirst().orElseThrow();
        store.recordStep(handedBack, step("handedBack"), attempt("handedBack"), 10, 60);
        store.release(handedBack, 20);
        // the function failed before its first step: its failed attempt alone, then a redelivery due at once
        Lease retried = earlier.stream().filter((l) -> l.taskId().equals("retried")).findFirst().orElseThrow();
        store.scheduleFunctionRetry(retried, new AttemptRow("retried", AttemptRow.FUNCTION_POSITION,
                "processarPedido", 1, 1, 10, 20, "FAILED",
                "{\"type\":\"org.springframework.web.client.HttpServerErrorException$BadGateway\"}", "RETRY", 0L),
                Set.of(), 20, 20);

        statements.set(0);
        List<dev.skail.platform.ExecutionStore.Claimed> claimed = store.claimDueWithHistory("vendas", "v1", "b", 10,
                100, 30_100, Set.of());

        assertThat(statements).hasValue(statementsPerClaim());
        assertThat(claimed).extracting((one) -> one.lease().taskId())
            .containsExactlyInAnyOrder("first", "evented", "handedBack", "retried", "expired");
        for (dev.skail.platform.ExecutionStore.Claimed one : claimed) {
            String taskId = one.lease().taskId();
            if (claimTellsFirstHistories() && Set.of("first", "expired").contains(taskId)) {
                // what the runner would have read: the same row, as the claim left it, and nothing else (a lease
                // that ended before any step was written leaves no history either)
                assertThat(one.history()).as(taskId).isEqualTo(store.history(taskId).orElseThrow());
                assertThat(one.history().execution().status()).isEqualTo(ExecutionStatus.RUNNING);
                assertThat(one.history().steps()).isEmpty();
            }
            else {
                // an event kept, a step recorded, a function attempt failed: the runner reads the history
                assertThat(one.history()).as(taskId).isNull();
            }
        }
        if (claimTellsFirstHistories()) {
            assertThat(claimed.stream().filter((one) -> one.lease().taskId().equals("first")).findFirst()
                .orElseThrow().history().execution().arguments()).isEqualTo(arguments);
        }
        Lease first = claimed.stream().map(dev.skail.platform.ExecutionStore.Claimed::lease)
            .filter((l) -> l.taskId().equals("first")).findFirst().orElseThrow();
        store.recordStep(first, step("first"), attempt("first"), 200, 30_200);
        assertThat(store.history("first").orElseThrow().steps()).hasSize(1);
    }

    @Test
    void twoInstancesPollingAtOnceClaimEachDueExecutionOnce() throws Exception {
        JdbcExecutionStore one = instance();
        JdbcExecutionStore two = instance();
        int executions = 300;
        for (int i = 0; i < executions; i++) {
            one.create(execution("t-" + i, i % 10));
        }
        ConcurrentLinkedQueue<Lease> claimed = new ConcurrentLinkedQueue<>();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> pollers = new ArrayList<>();
            CyclicBarrier start = new CyclicBarrier(8);
            for (int t = 0; t < 8; t++) {
                JdbcExecutionStore store = (t % 2 == 0) ? one : two;
                String owner = ((t % 2 == 0) ? "one-" : "two-") + t;
                pollers.add(threads.submit(() -> {
                    start.await();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    // leases far in the future: a second claim of one execution could only be a double claim
                    while (claimed.size() < executions && System.nanoTime() < deadline) {
                        claimed.addAll(store.claimDue("vendas", "v1", owner, 5, 100, 10_000_000, Set.of()));
                    }
                    return null;
                }));
            }
            for (Future<?> poller : pollers) {
                poller.get(30, TimeUnit.SECONDS);
            }
        }
        finally {
            threads.shutdownNow();
        }

        assertThat(claimed).extracting(Lease::taskId).hasSize(executions).doesNotHaveDuplicates();
        assertThat(claimed).extracting(Lease::token).doesNotHaveDuplicates();
        assertThat(claimed).extracting(Lease::owner).anyMatch((owner) -> owner.startsWith("one-"))
            .anyMatch((owner) -> owner.startsWith("two-"));
        assertThat(one.claimDue("vendas", "v1", "three", 10, 200, 10_000_200, Set.of())).isEmpty();
        // each lease holds: every one of them can record, none was taken by another claim
        assertThat(one.renew(List.copyOf(claimed), 300, 10_000_300)).isEmpty();
    }

    @Test
    void aBacklogOfNewExecutionsDoesNotDelayWakeUpsOrExpiredLeasesInOnePoll() {
        JdbcExecutionStore store = instance();
        dueWakeUpAndExpiredLeaseBehindABacklog(store);

        List<Lease> claimed = store.claimDue("vendas", "v1", "b", 3, 100, 30_100, Set.of());

        assertThat(claimed).extracting(Lease::taskId).contains("waiting", "abandoned").hasSize(3);
    }

    @Test
    void aBacklogOfNewExecutionsDoesNotDelayWakeUpsOrExpiredLeasesOneAtATime() {
        JdbcExecutionStore store = instance();
        dueWakeUpAndExpiredLeaseBehindABacklog(store);

        // one execution per poll (a worker with one free thread): each kind of due work gets its turn
        List<String> claimed = new ArrayList<>();
        for (int poll = 0; poll < 3; poll++) {
            store.claimDue("vendas", "v1", "b", 1, 100, 30_100, Set.of()).forEach((lease) -> claimed.add(lease.taskId()));
        }

        assertThat(claimed).contains("waiting", "abandoned").hasSize(3);
    }

    /**
     * A WAITING execution due at 50, a RUNNING one whose lease ended at 60, and 1,000 new executions due since
     * before either.
     */
    private static void dueWakeUpAndExpiredLeaseBehindABacklog(JdbcExecutionStore store) {
        store.create(execution("waiting", 0));
        store.create(execution("abandoned", 0));
        List<Lease> leases = store.claimDue("vendas", "v1", "a", 10, 10, 60, Set.of());
        assertThat(leases).hasSize(2);
        Lease waiting = leases.stream().filter((lease) -> lease.taskId().equals("waiting")).findFirst().orElseThrow();
        store.suspend(waiting, new Suspend(ExecutionStatus.WAITING, 50L, Set.of(), Set.of()), 20);
        for (int i = 0; i < 1_000; i++) {
            store.create(execution("new-" + i, i % 10));
        }
    }

    @Test
    void anotherInstanceStartingTakesOverAnExecutionOnlyWhenItsLeaseEnds() {
        JdbcExecutionStore first = instance();
        first.create(execution("t-1", 0));
        Lease held = first.claimDue("vendas", "v1", "first", 10, 100, 30_100, Set.of()).get(0);

        JdbcExecutionStore second = instance();

        assertThat(second.claimDue("vendas", "v1", "second", 10, 200, 30_200, Set.of())).isEmpty();
        assertThat(second.claimDue("vendas", "v1", "second", 10, 30_101, 60_101, Set.of()))
            .extracting(Lease::taskId).containsExactly("t-1");
        assertThatExceptionOfType(LeaseLostException.class)
            .isThrownBy(() -> first.recordStep(held, step("t-1"), attempt("t-1"), 30_200, 60_200));
    }

    @Test
    void twoInstancesCreatingAnEmptySchemaAtOnceBothStart() throws Exception {
        for (int round = 0; round < 5; round++) {
            freshDatabase();
            JdbcExecutionStore one = store(pool());
            JdbcExecutionStore two = store(pool());
            CyclicBarrier start = new CyclicBarrier(2);
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                Future<?> first = threads.submit(() -> {
                    start.await();
                    one.initialize();
                    return null;
                });
                Future<?> second = threads.submit(() -> {
                    start.await();
                    two.initialize();
                    return null;
                });
                first.get(30, TimeUnit.SECONDS);
                second.get(30, TimeUnit.SECONDS);
            }
            finally {
                threads.shutdownNow();
            }

            assertThat(schemaVersions()).containsExactlyElementsOf(java.util.stream.IntStream
                .rangeClosed(1, SchemaMigrations.all(SqlDialect.H2).size()).boxed().toList());
            one.create(execution("t-1", 0));
            assertThat(two.claimDue("vendas", "v1", "two", 10, 100, 30_100, Set.of())).hasSize(1);
        }
    }

    private List<Integer> schemaVersions() throws Exception {
        try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT version FROM skail_schema ORDER BY version")) {
            List<Integer> versions = new ArrayList<>();
            while (rs.next()) {
                versions.add(rs.getInt(1));
            }
            return versions;
        }
    }

    private static List<String> remaining(Set<String> excluded, List<Lease> claimed, int created) {
        Set<String> taken = new HashSet<>(excluded);
        claimed.forEach((lease) -> taken.add(lease.taskId()));
        List<String> remaining = new ArrayList<>();
        for (int i = 1; i <= created; i++) {
            if (!taken.contains("t-" + i)) {
                remaining.add("t-" + i);
            }
        }
        return remaining;
    }

    /** A store on a pool of its own whose statements are counted, its schema created. */
    JdbcExecutionStore countingStore(AtomicInteger statements) {
        JdbcExecutionStore store = store(countingStatements(pool(), statements));
        store.initialize();
        return store;
    }

    /** The data source, counting the statements prepared or created on its connections. */
    static DataSource countingStatements(DataSource dataSource, AtomicInteger statements) {
        return (DataSource) Proxy.newProxyInstance(ClaimingTests.class.getClassLoader(),
                new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
                    Object result = invoke(method, dataSource, args);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    Connection connection = (Connection) result;
                    return Proxy.newProxyInstance(ClaimingTests.class.getClassLoader(),
                            new Class<?>[] { Connection.class }, (p, m, a) -> {
                                if (m.getName().equals("prepareStatement") || m.getName().equals("createStatement")
                                        || m.getName().equals("prepareCall")) {
                                    statements.incrementAndGet();
                                }
                                return invoke(m, connection, a);
                            });
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        }
        catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }

    static ExecutionRow execution(String taskId, long createdAt) {
        return execution(taskId, "v1", createdAt);
    }

    static ExecutionRow execution(String taskId, String version, long createdAt) {
        return new ExecutionRow(taskId, "vendas", version, "processarPedido", "[\"x\"]", ExecutionStatus.PENDING, null,
                null, 1, 0, createdAt, createdAt, createdAt, null);
    }

    static StepRow step(String taskId) {
        return new StepRow(taskId, 0, StepRow.COMMAND, "reservarEstoque", "[]", StepRow.COMPLETED, "\"ok\"", null,
                "key", 1, 150, 160, null);
    }

    static AttemptRow attempt(String taskId) {
        return new AttemptRow(taskId, 0, "reservarEstoque", 1, 1, 150, 160, "SUCCEEDED", null, "RECORDED", null);
    }
}
