package dev.skail.test.loja;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailQuery;
import dev.skail.autoconfigure.SkailProperties;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTest;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each application context of a {@code @SkailTest} has a store of its own, in memory, whatever the application's
 * configuration says ({@code application.properties} of these tests names a file); test classes with the same
 * configuration share one context (Spring's context cache), and so its store. Three test classes, two
 * configurations: two contexts, two stores, each holding the orders of its own test classes only.
 */
@SkailTest(properties = "skail.worker.poll-interval=40ms") // a configuration of these tests only
class FreshStoreTests {

    /** The store of each context, and the orders the test classes of that context triggered. */
    static final Map<ApplicationContext, String> storeByContext = new ConcurrentHashMap<>();

    static final Map<ApplicationContext, Set<String>> ordersByContext = new ConcurrentHashMap<>();

    @AfterAll
    static void twoConfigurationsMadeTwoContextsWithAStoreEach() {
        assertThat(storeByContext).hasSize(2);
        assertThat(storeByContext.values()).doesNotHaveDuplicates()
            .allSatisfy((url) -> assertThat(url).startsWith("local:mem:skail-test-"));
        assertThat(ordersByContext.values()).extracting(Set::size).containsExactlyInAnyOrder(2, 1);
    }

    abstract static class OrderInAFreshStore {

        @Autowired
        ApplicationContext context;

        @Autowired
        SkailProperties properties;

        @Autowired
        SkailClient skail;

        @Autowired
        SkailAwait await;

        @Autowired
        VirtualClock clock;

        @Test
        void theStoreIsInMemoryAndHoldsOnlyTheOrdersOfItsContext() {
            storeByContext.put(this.context, this.properties.getStore().getUrl());
            String taskId = "pedido-" + getClass().getSimpleName();
            Set<String> ordersOfThisContext = ordersByContext.computeIfAbsent(this.context,
                    (context) -> ConcurrentHashMap.newKeySet());
            ordersOfThisContext.add(taskId);

            this.skail.trigger(taskId, Pedidos.class,
                    (p) -> p.processarPedido(UUID.randomUUID(), new BigDecimal("75.50")));
            this.await.status(taskId, ExecutionStatus.WAITING);
            this.clock.advance(Duration.ofHours(24));

            assertThat(this.await.status(taskId, ExecutionStatus.COMPLETED).result(String.class))
                .isEqualTo("CONFIRMADO");
            assertThat(this.skail.search(SkailQuery.all()).items()).extracting(SkailExecution::taskId)
                .containsExactlyInAnyOrderElementsOf(ordersOfThisContext);
        }
    }

    @Nested
    class FirstClassOfTheFirstConfiguration extends OrderInAFreshStore {

    }

    @Nested
    class SecondClassOfTheFirstConfiguration extends OrderInAFreshStore {

    }

    @Nested
    @TestPropertySource(properties = "skail.worker.poll-interval=50ms")
    class AnotherConfiguration extends OrderInAFreshStore {

    }
}
