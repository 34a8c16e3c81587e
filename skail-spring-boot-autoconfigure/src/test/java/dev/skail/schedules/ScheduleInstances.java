package dev.skail.schedules;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.skail.SkailClient;
import dev.skail.runtime.SkailRuntime;
import dev.skail.runtime.SkailScheduler;
import dev.skail.runtime.SkailWorker;
import dev.skail.test.SkailAwait;
import dev.skail.test.VirtualClock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Instances of an application with {@link ScheduledFlows}, each a Spring context of its own, on one store and one
 * {@link VirtualClock}: what restarts and several instances see of time is one time line, which the test moves.
 */
final class ScheduleInstances {

    /** How many time lines were handed out in this JVM. */
    private static final java.util.concurrent.atomic.AtomicInteger timeLines = new java.util.concurrent.atomic.AtomicInteger();

    private ScheduleInstances() {
    }

    /**
     * A virtual clock of a year of its own, years ahead of now: the ticks of one test never have the ids of another's
     * (the counts of {@link ScheduledFlows} are shared by the JVM).
     */
    static VirtualClock timeLine() {
        VirtualClock clock = new VirtualClock();
        clock.advance(Duration.ofDays(366L * (10 + timeLines.incrementAndGet())));
        return clock;
    }

    /**
     * Starts an instance.
     * @param clock the time line every instance shares
     * @param store the store's JDBC URL
     * @param properties more properties, {@code name=value}
     */
    static ConfigurableApplicationContext start(VirtualClock clock, String store, String... properties) {
        List<String> all = new ArrayList<>(List.of("skail.workload=vendas:v1.0.0", "skail.store.url=" + store,
                "skail.worker.poll-interval=1h", "skail.schedules.poll-interval=1h", "skail.worker.shutdown-timeout=5s",
                "spring.main.banner-mode=off"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(ScheduleApp.class).web(WebApplicationType.NONE)
            .initializers((context) -> context.getBeanFactory().registerSingleton("skailClock", clock))
            .properties(all.toArray(String[]::new))
            .run();
    }

    static SkailAwait await(ConfigurableApplicationContext instance) {
        return new SkailAwait(instance.getBean(SkailClient.class));
    }

    static SkailRuntime runtime(ConfigurableApplicationContext instance) {
        return instance.getBean(SkailRuntime.class);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ScheduledFlows.class)
    static class ScheduleApp {

        /** Advancing the shared clock wakes this instance's worker and scheduler (a stopped one ignores it). */
        @Bean
        static SmartInitializingSingleton wakeOnAdvance(ObjectProvider<VirtualClock> clock,
                ObjectProvider<SkailWorker> worker, ObjectProvider<SkailScheduler> scheduler) {
            return () -> clock.ifAvailable((virtualClock) -> {
                worker.ifAvailable((w) -> virtualClock.onAdvance(w::nudge));
                scheduler.ifAvailable((s) -> virtualClock.onAdvance(s::nudge));
            });
        }
    }
}
