package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.Suspend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ClaimingTests} on PostgreSQL (each test in schemas of its own), and what only PostgreSQL does: an instance
 * that makes work due at once wakes the others through {@code LISTEN/NOTIFY}. The PostgreSQL is the one
 * {@code bin/test-postgres} starts; its URL comes in {@code skail.test.postgres-url} or
 * {@code SKAIL_TEST_POSTGRES_URL}.
 */
class ClaimingOnPostgreSqlTests extends ClaimingTests {

    private static final Duration WITHIN_A_SECOND = Duration.ofSeconds(1);

    private final List<String> schemas = new ArrayList<>();

    /** A version of its own per test: notifications are database-wide, other tests' must not count here. */
    private final String version = "v-" + UUID.randomUUID();

    @BeforeEach
    void database() {
        freshDatabase();
    }

    @AfterEach
    void dropSchemas() throws Exception {
        try (Connection connection = java.sql.DriverManager.getConnection(postgresUrl());
                Statement statement = connection.createStatement()) {
            for (String schema : this.schemas) {
                statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }

    @Override
    String url() {
        return postgresUrl();
    }

    @Override
    boolean claimTellsFirstHistories() {
        return true;
    }

    @Override
    void configure(HikariDataSource pool) {
        pool.setSchema(this.schemas.get(this.schemas.size() - 1));
    }

    @Override
    void freshDatabase() {
        String schema = "claiming_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection connection = java.sql.DriverManager.getConnection(postgresUrl());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        }
        catch (java.sql.SQLException ex) {
            throw new IllegalStateException(ex);
        }
        this.schemas.add(schema);
    }

    static String postgresUrl() {
        String url = System.getProperty("skail.test.postgres-url", System.getenv("SKAIL_TEST_POSTGRES_URL"));
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("No PostgreSQL for the tests: run them with ./bin/test, which starts one "
                    + "(bin/test-postgres), or pass -Dskail.test.postgres-url=jdbc:postgresql://...");
        }
        return url;
    }

    @Test
    void storesThatCreateTheirSchemasReleaseTheirMigrationLocksSoOtherInstancesStart() throws Exception {
        List<HikariDataSource> pools = new ArrayList<>();
        try {
            for (int instance = 0; instance < 2; instance++) {
                String schema = "claiming_" + UUID.randomUUID().toString().replace("-", "");
                this.schemas.add(schema);
                HikariDataSource pool = new HikariDataSource();
                pool.setJdbcUrl(postgresUrl());
                pool.setSchema(schema); // missing: the store's migration creates it
                pool.setMaximumPoolSize(3);
                pools.add(pool);
                JdbcExecutionStore store = new JdbcExecutionStore(pool, SqlDialect.POSTGRESQL,
                        new StoreRetry(SqlDialect.POSTGRESQL, 3, Duration.ofMillis(1), Duration.ofMillis(5)), null,
                        schema, true);
                // the second waited forever: the first kept its lock on a pooled connection, under the key both took
                java.util.concurrent.CompletableFuture.runAsync(store::initialize)
                    .get(10, java.util.concurrent.TimeUnit.SECONDS);
            }
            try (Connection connection = pools.get(0).getConnection();
                    Statement statement = connection.createStatement();
                    java.sql.ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM pg_locks "
                            + "WHERE locktype = 'advisory' AND classid = " + 0x736b6169)) {
                rs.next();
                assertThat(rs.getInt(1)).isZero();
            }
        }
        finally {
            pools.forEach(HikariDataSource::close);
        }
    }

    @Test
    void aClaimIsPlannedOncePerConnectionAndLeavesNoSettingBehindItsTransaction() throws Exception {
        // two connections: the migration holds its lock on one while it works on the other
        HikariDataSource pool = pool();
        pool.setMaximumPoolSize(2);
        JdbcExecutionStore store = store(pool);
        store.initialize();
        for (int i = 0; i < 12; i++) {
            store.create(execution("pedido-" + i, this.version, i));
        }
        // one with a history, so that the claim names it
        Lease first = store.claimDue("vendas", this.version, "a", 1, 100, 200, Set.of()).get(0);
        store.recordStep(first, new StepRow(first.taskId(), 0, StepRow.COMMAND, "reservarEstoque", "[]",
                StepRow.COMPLETED, "true", null, "key-0", 1, 150, 150, null), null, 150, 200);
        store.release(first, 160);

        // twelve claims of a row each: the driver prepares a statement on the server from its fifth use on a
        // connection, so one of the two connections at least holds the claim prepared
        List<String> claimed = new ArrayList<>();
        for (int claim = 0; claim < 12; claim++) {
            store.claimDueWithHistory("vendas", this.version, "b", 1, 300 + claim, 30_300, Set.copyOf(claimed))
                .forEach((one) -> claimed.add(one.lease().taskId()));
        }

        assertThat(claimed).hasSize(12).doesNotHaveDuplicates();
        long generic = 0;
        long custom = 0;
        try (Connection one = pool.getConnection(); Connection other = pool.getConnection()) {
            for (Connection connection : List.of(one, other)) {
                try (Statement statement = connection.createStatement()) {
                    try (ResultSet rs = statement.executeQuery("SELECT generic_plans, custom_plans "
                            + "FROM pg_prepared_statements WHERE statement LIKE '%WITH due AS%'")) {
                        while (rs.next()) {
                            generic += rs.getLong("generic_plans");
                            custom += rs.getLong("custom_plans");
                        }
                    }
                    // the settings the claim made were its transaction's
                    try (ResultSet rs = statement.executeQuery("SELECT current_setting('plan_cache_mode'), "
                            + "COALESCE(current_setting('skail.claimed', true), '')")) {
                        rs.next();
                        assertThat(rs.getString(1)).isEqualTo("auto");
                        assertThat(rs.getString(2)).isEmpty();
                    }
                }
            }
        }
        // one plan kept per connection, none made again for the values bound
        assertThat(generic).isPositive();
        assertThat(custom).isZero();
    }

    @Test
    void aClaimTellsWhichHaveAHistoryWhateverCharactersTheirIdsHold() throws Exception {
        JdbcExecutionStore store = instance();
        // the ids go to the claim's second statement as the text of an array: quotes, commas, braces, backslashes,
        // spaces and the word NULL must come back as they were
        List<String> ids = List.of("pedido \"1\", {a}", "pedido\\2", "NULL", "pedido:3@loja");
        for (String id : ids) {
            store.create(execution(id, this.version, 0));
        }
        Lease first = store.claimDue("vendas", this.version, "a", 1, 100, 200, Set.of()).get(0);
        store.recordStep(first, new StepRow(first.taskId(), 0, StepRow.COMMAND, "reservarEstoque", "[]",
                StepRow.COMPLETED, "true", null, "key-0", 1, 150, 150, null), null, 150, 200);
        store.release(first, 160);

        List<dev.skail.platform.ExecutionStore.Claimed> claimed = store.claimDueWithHistory("vendas", this.version,
                "b", 10, 300, 30_300, Set.of());

        assertThat(claimed).extracting((one) -> one.lease().taskId()).containsExactlyInAnyOrderElementsOf(ids);
        for (dev.skail.platform.ExecutionStore.Claimed one : claimed) {
            if (one.lease().taskId().equals(first.taskId())) {
                assertThat(one.history()).as(one.lease().taskId()).isNull();
            }
            else {
                assertThat(one.history()).as(one.lease().taskId()).isNotNull();
                assertThat(one.history().steps()).isEmpty();
            }
        }
    }

    @Test
    void aTriggerOnOneInstanceWakesAnotherWithinASecond() throws Exception {
        JdbcExecutionStore triggering = instance();
        AtomicInteger wakeUps = listening(instance());
        int before = wakeUps.get();

        triggering.create(execution("t-1", this.version, 0));

        await().atMost(WITHIN_A_SECOND).until(() -> wakeUps.get() > before);
    }

    @Test
    void anEventFiredAtAWaitingExecutionWakesAnotherInstanceWithinASecond() throws Exception {
        JdbcExecutionStore firing = instance();
        firing.create(execution("t-1", this.version, 0));
        Lease lease = firing.claimDue("vendas", this.version, "a", 1, 100, 30_100, Set.of()).get(0);
        firing.suspend(lease, new Suspend(ExecutionStatus.WAITING, null, Set.of("aprovado"), Set.of()), 200);
        AtomicInteger wakeUps = listening(instance());
        int before = wakeUps.get();

        firing.fire("t-1", "aprovado", "true", "k-1", 300);

        await().atMost(WITHIN_A_SECOND).until(() -> wakeUps.get() > before);
    }

    @Test
    void aChildsEndWakesTheInstancesOfItsWaitingParentWithinASecond() throws Exception {
        JdbcExecutionStore running = instance();
        running.create(execution("parent", this.version, 0));
        Lease parent = running.claimDue("vendas", this.version, "a", 1, 100, 30_100, Set.of()).get(0);
        ExecutionRow child = new ExecutionRow("child", "vendas", this.version, "reservar", "[]",
                ExecutionStatus.PENDING, null, null, 1, 0, 150L, 150, 150, "parent");
        running.startChild(parent, new StepRow("parent", 0, StepRow.CHILD, "reservar", "[]", StepRow.PENDING, null,
                null, "key", 1, 150, 150, "child"), child, 150, 30_150);
        running.suspend(parent, new Suspend(ExecutionStatus.WAITING, null, Set.of(), Set.of("child")), 200);
        Lease childLease = running.claimDue("vendas", this.version, "a", 1, 300, 30_300, Set.of()).get(0);
        AtomicInteger wakeUps = listening(instance());
        int before = wakeUps.get();

        running.complete(childLease, "\"ok\"", 400);

        await().atMost(WITHIN_A_SECOND).until(() -> wakeUps.get() > before);
        assertThat(running.claimDue("vendas", this.version, "b", 10, 500, 30_500, Set.of()))
            .extracting(Lease::taskId).containsExactly("parent");
    }

    @Test
    void aResumeOnOneInstanceWakesAnotherWithinASecond() throws Exception {
        JdbcExecutionStore resuming = instance();
        resuming.create(execution("t-1", this.version, 0));
        Lease lease = resuming.claimDue("vendas", this.version, "a", 1, 100, 30_100, Set.of()).get(0);
        resuming.fail(lease, "{}", null, 200);
        AtomicInteger wakeUps = listening(instance());
        int before = wakeUps.get();

        assertThat(resuming.resume("t-1", 300)).isTrue();

        await().atMost(WITHIN_A_SECOND).until(() -> wakeUps.get() > before);
    }

    @Test
    void storesInOtherSchemasOfTheDatabaseWakeNoWorkerHereAndTellNoEndHere() throws Exception {
        String schemaHere = this.schemas.get(this.schemas.size() - 1);
        JdbcExecutionStore here = instance();
        // another environment in the same database, with the same workload and version
        freshDatabase();
        JdbcExecutionStore elsewhere = instance();
        List<String> ended = new java.util.concurrent.CopyOnWriteArrayList<>();
        ExecutionStore.Listening endsHere = here.onEnded((taskId) -> {
            if (taskId != null) {
                ended.add(taskId);
            }
        });
        try (endsHere; Connection listener = java.sql.DriverManager.getConnection(postgresUrl())) {
            await().atMost(Duration.ofSeconds(5)).until(endsHere::listening);
            listener.setSchema(schemaHere);
            String channel = PostgreSqlJdbcCustomization.channel(listener, "vendas", this.version);
            try (Statement statement = listener.createStatement()) {
                statement.execute("LISTEN " + channel);
            }

            // PostgreSQL delivers notifications in the order their transactions committed: had elsewhere's reached
            // this schema's channels, they would come before here's
            for (JdbcExecutionStore store : List.of(elsewhere, here)) {
                String taskId = (store == here) ? "pedido-here" : "pedido-elsewhere";
                store.create(execution(taskId, this.version, 0));
                Lease lease = store.claimDue("vendas", this.version, "a", 1, 100, 30_100, Set.of()).get(0);
                store.complete(lease, "{\"total\":150.00}", 200);
            }

            List<String> due = new ArrayList<>();
            org.postgresql.PGConnection notifications = listener.unwrap(org.postgresql.PGConnection.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                org.postgresql.PGNotification[] received = notifications.getNotifications(100);
                if (received != null) {
                    for (org.postgresql.PGNotification notification : received) {
                        due.add(notification.getParameter());
                    }
                }
                return due.contains("pedido-here");
            });
            assertThat(due).containsExactly("pedido-here");
            await().atMost(Duration.ofSeconds(5)).until(() -> ended.contains("pedido-here"));
            assertThat(ended).containsExactly("pedido-here");
        }
    }

    @Test
    void aListenerThatStartsBeforeTheStoresSchemaExistsListensOnItsChannelOnceItDoes() throws Exception {
        // an instance whose store could not be migrated yet (the database was down at its start): its worker's
        // listener starts meanwhile, on connections whose schema does not exist
        String schema = "claiming_" + UUID.randomUUID().toString().replace("-", "");
        this.schemas.add(schema);
        try (HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(postgresUrl());
            pool.setSchema(schema);
            pool.setMaximumPoolSize(3);
            JdbcExecutionStore late = new JdbcExecutionStore(pool, SqlDialect.POSTGRESQL,
                    new StoreRetry(SqlDialect.POSTGRESQL, 3, Duration.ofMillis(1), Duration.ofMillis(5)), null,
                    schema, true);
            AtomicInteger wakeUps = new AtomicInteger();
            try (AutoCloseable listening = late.onDue("vendas", this.version, wakeUps::incrementAndGet)) {
                late.initialize();
                // it listens once the tables are there (it wakes up once then), on the channel the store notifies
                await().atMost(Duration.ofSeconds(20)).until(() -> wakeUps.get() > 0);
                int before = wakeUps.get();
                late.create(execution("pedido-1", this.version, 0));
                await().atMost(WITHIN_A_SECOND).until(() -> wakeUps.get() > before);
                late.close();
            }
        }
    }

    @Test
    void theListenerListensAgainAfterItsConnectionIsDropped() throws Exception {
        JdbcExecutionStore triggering = instance();
        AtomicInteger wakeUps = listening(instance());
        int before = wakeUps.get();

        assertThat(dropListeningConnections()).isPositive();

        // listening again, it wakes the worker once (work may have become due meanwhile)
        await().atMost(Duration.ofSeconds(5)).until(() -> wakeUps.get() > before);
        await().atMost(Duration.ofSeconds(5)).until(() -> listeningConnections() > 0);
        int listeningAgain = wakeUps.get();
        triggering.create(execution("t-1", this.version, 0));
        await().atMost(WITHIN_A_SECOND).until(() -> wakeUps.get() > listeningAgain);
    }

    @Test
    void closingTheStoreStopsListeningAndGivesTheConnectionBack() throws Exception {
        JdbcExecutionStore store = instance();
        listening(store);

        store.close();

        assertThat(listeningConnections()).isZero();
    }

    /** Listens for this test's version; returns once it listens (it wakes up once then). */
    private AtomicInteger listening(JdbcExecutionStore store) {
        return listening(store, this.version);
    }

    private AtomicInteger listening(JdbcExecutionStore store, String version) {
        AtomicInteger wakeUps = new AtomicInteger();
        store.onDue("vendas", version, wakeUps::incrementAndGet);
        await().atMost(Duration.ofSeconds(5)).until(() -> wakeUps.get() > 0);
        return wakeUps;
    }

    private int listeningConnections() throws Exception {
        return terminate("SELECT COUNT(*) FROM pg_stat_activity WHERE query = ? AND state = 'idle'");
    }

    private int dropListeningConnections() throws Exception {
        return terminate("SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query = ?");
    }

    private int terminate(String sql) throws Exception {
        try (Connection connection = java.sql.DriverManager.getConnection(postgresUrl())) {
            connection.setSchema(this.schemas.get(this.schemas.size() - 1));
            return terminate(connection, sql);
        }
    }

    private int terminate(Connection connection, String sql) throws Exception {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setString(1, "LISTEN " + PostgreSqlJdbcCustomization.channel(connection, "vendas", this.version));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
