package dev.skail.runtime;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.jdbc.JdbcExecutionStore;
import dev.skail.platform.jdbc.SqlDialect;
import dev.skail.platform.jdbc.StoreRetry;
import dev.skail.test.SkailAwait;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/** S11: a failure to reach the store is retried by the runtime and never counted as an attempt. */
@SpringBootTest(classes = TransportBlipTests.BlipApp.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.retry.backoff.initial=0ms", "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms" })
class TransportBlipTests {

    @Autowired
    SkailClient client;

    @Autowired
    FlakyDataSource dataSource;

    @Autowired
    Blips blips;

    @Test
    void storeThatDropsConnectionsWhileAStepIsRecordedCostsNoAttempt() {
        this.client.trigger("gravarComFalhaDeRede", "blip-1", "blip-1");

        new SkailAwait(this.client).status("blip-1", ExecutionStatus.COMPLETED);

        // the store refused 3 connections right when the command's result was to be recorded
        assertThat(this.dataSource.refused.get()).isEqualTo(3);
        assertThat(this.blips.runs.get()).isEqualTo(1);
        assertThat(this.client.history("blip-1").steps().get(0).attempts()).extracting(SkailAttempt::decision)
            .containsExactly("RECORDED");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Blips.class)
    static class BlipApp {

        @Bean
        FlakyDataSource flakyDataSource() {
            HikariDataSource pool = new HikariDataSource();
            pool.setJdbcUrl("jdbc:h2:mem:blip-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
            return new FlakyDataSource(pool);
        }

        @Bean
        ExecutionStore executionStore(FlakyDataSource dataSource) {
            JdbcExecutionStore store = new JdbcExecutionStore(dataSource, SqlDialect.H2,
                    new StoreRetry(SqlDialect.H2, 5, Duration.ofMillis(5), Duration.ofMillis(20)), dataSource.pool);
            store.initialize();
            return store;
        }
    }

    public static class Blips {

        final AtomicInteger runs = new AtomicInteger();

        private final FlakyDataSource dataSource;

        public Blips(FlakyDataSource dataSource) {
            this.dataSource = dataSource;
        }

        @SkailFunction
        public void gravarComFalhaDeRede(String id) {
            comando(id);
        }

        @SkailCommand
        public String comando(String id) {
            this.runs.incrementAndGet();
            this.dataSource.refuseNext(3); // the network drops as the command returns
            return "done";
        }
    }

    /** A data source whose next connections can be refused, as when the database is briefly unreachable. */
    static class FlakyDataSource implements DataSource {

        final HikariDataSource pool;

        final AtomicInteger toRefuse = new AtomicInteger();

        final AtomicInteger refused = new AtomicInteger();

        FlakyDataSource(HikariDataSource pool) {
            this.pool = pool;
        }

        void refuseNext(int count) {
            this.toRefuse.set(count);
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (this.toRefuse.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
                this.refused.incrementAndGet();
                throw new SQLTransientConnectionException("connection refused", "08001");
            }
            return this.pool.getConnection();
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }
}
