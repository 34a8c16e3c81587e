package dev.skail.replay;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.StoreUnavailableException;
import dev.skail.runtime.StoreInterception;
import dev.skail.test.SkailAwait;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/** A delivery that fails before it can start gives the execution back at once, instead of holding it a lease. */
@SpringBootTest(classes = HistoryReadFailureTests.App.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=20ms",
        "skail.worker.lease-duration=60s" })
class HistoryReadFailureTests {

    static final AtomicInteger historyFailures = new AtomicInteger(1);

    @Autowired
    SkailClient client;

    @Autowired
    ReplayFlows flows;

    @Test
    void historyThatCannotBeReadReleasesTheLeaseAndTheExecutionRunsAtTheNextPoll() {
        this.client.trigger("esperarPrazo", "pedido-5", "pedido-5");

        // the lease lasts 60 s: completing within 10 s proves the execution was given back, not left to expire
        new SkailAwait(this.client, Duration.ofSeconds(10)).status("pedido-5", ExecutionStatus.WAITING);
        assertThat(historyFailures.get()).isZero();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ReplayFlows.class)
    static class App {

        /** The store, whose first read of a history fails as if the database were unreachable. */
        @Bean
        static BeanPostProcessor failingHistoryRead() {
            return StoreInterception.around((call) -> {
                if (call.name().equals("createClaimed")) {
                    // no hand-off at the trigger: the delivery is polled, and reads its history
                    @SuppressWarnings("unchecked")
                    java.util.List<dev.skail.platform.Tag> tags = (java.util.List<dev.skail.platform.Tag>) call.args()[1];
                    return new ExecutionStore.Created(
                            call.store().create((dev.skail.platform.ExecutionRow) call.args()[0], tags), false);
                }
                if (call.name().equals("claimDueWithHistory")) {
                    // no history told by the claim (PostgreSQL's, for an execution with none yet): it is read
                    Object[] args = call.args();
                    @SuppressWarnings("unchecked")
                    java.util.Set<String> exclude = (java.util.Set<String>) args[6];
                    return call.store().claimDue((String) args[0], (String) args[1], (String) args[2], (int) args[3],
                            (long) args[4], (long) args[5], exclude).stream()
                        .map((lease) -> new ExecutionStore.Claimed(lease, null))
                        .toList();
                }
                if (call.name().equals("history") && historyFailures.compareAndSet(1, 0)) {
                    throw new StoreUnavailableException("could not read history (test)",
                            new java.sql.SQLException("connection refused", "08001"));
                }
                return call.proceed();
            });
        }
    }
}
