package dev.skail.runtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailExecution;
import dev.skail.SkailFunction;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls to commands are intercepted from another bean, from the same class ({@code this.x()}), and when the bean is
 * also proxied by Spring AOP for {@code @Transactional}; outside an execution the methods are plain Java.
 */
@SpringBootTest(classes = InterceptionTests.TransactionalApp.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
        "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms" })
class InterceptionTests {

    @Autowired
    SkailClient client;

    @Autowired
    Contabilidade contabilidade;

    @Autowired
    CountingTransactionManager transactions;

    @Test
    void selfInvokedCommandOfATransactionalBeanIsInterceptedAndRunsInTheTransaction() {
        assertThat(AopUtils.isAopProxy(this.contabilidade)).isTrue();

        this.client.trigger("lancar", "tx-1", "tx-1");

        SkailExecution execution = Awaitility.await().atMost(Duration.ofSeconds(20))
            .until(() -> this.client.find("tx-1").orElseThrow(), (e) -> e.status() == ExecutionStatus.COMPLETED);
        assertThat(execution.result(String.class)).isEqualTo("posted tx-1");
        // the command failed once, so it ran twice, each time inside the transaction the proxy opened
        assertThat(this.contabilidade.runs()).isEqualTo(2);
        assertThat(this.contabilidade.seenInTransaction()).containsExactly(true, true);
        assertThat(this.client.history("tx-1").steps()).hasSize(1);
        assertThat(this.transactions.begun.get()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void outsideAnExecutionAnnotatedMethodsRunAsPlainJava() {
        int before = this.contabilidade.runs();

        String result = this.contabilidade.lancar("plain");

        assertThat(result).isEqualTo("posted plain");
        assertThat(this.contabilidade.runs()).isEqualTo(before + 1);
        assertThat(this.client.find("plain")).isEmpty();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableTransactionManagement
    @Import(Contabilidade.class)
    static class TransactionalApp {

        @Bean
        CountingTransactionManager transactionManager() {
            return new CountingTransactionManager();
        }
    }

    @Transactional
    public static class Contabilidade {

        final AtomicInteger runs = new AtomicInteger();

        final List<Boolean> seenInTransaction = new CopyOnWriteArrayList<>();

        public int runs() {
            return this.runs.get();
        }

        public List<Boolean> seenInTransaction() {
            return this.seenInTransaction;
        }

        @SkailFunction
        public String lancar(String id) {
            return registrarLancamento(id);
        }

        @SkailCommand
        public String registrarLancamento(String id) {
            int run = this.runs.incrementAndGet();
            this.seenInTransaction.add(TransactionSynchronizationManager.isActualTransactionActive());
            if (id.startsWith("tx-") && run == 1) {
                throw new IllegalStateException("ledger locked");
            }
            return "posted " + id;
        }
    }

    /** A transaction manager that only counts, enough to make @Transactional proxies real. */
    static class CountingTransactionManager extends AbstractPlatformTransactionManager
            implements PlatformTransactionManager {

        final AtomicInteger begun = new AtomicInteger();

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            this.begun.incrementAndGet();
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
        }
    }
}
