package dev.skail.benchmarks.startup;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup;
import org.springframework.boot.context.metrics.buffering.StartupTimeline;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.metrics.StartupStep;

/**
 * A minimal non-web Spring Boot application with one bean ({@link Orders}), run once per JVM: it records its start-up
 * steps ({@link BufferingApplicationStartup}), prints how long {@code SpringApplication.run} took and the JVM's uptime
 * once the context is ready, then the recorded steps, and closes.
 * <p>
 * Output lines: {@code STARTUP run_ms=... uptime_ms=...} and {@code STEP <name> <local start time> <duration µs> <id>
 * <parent id> <tags>}; the log's lines carry the same local time (the harness sets the console pattern).
 */
@SpringBootApplication
public class StartupApp {

    /** The log's time pattern, which the harness sets as Boot's console pattern (microseconds). */
    public static final String TIME = "HH:mm:ss.SSSSSS";

    public static void main(String[] args) {
        long start = System.nanoTime();
        SpringApplication application = new SpringApplication(StartupApp.class, Orders.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        BufferingApplicationStartup startup = new BufferingApplicationStartup(100_000);
        application.setApplicationStartup(startup);
        ConfigurableApplicationContext context = application.run(args);
        long run = System.nanoTime() - start;
        long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
        System.out.printf(Locale.ROOT, "STARTUP run_ms=%.3f uptime_ms=%d%n", run / 1e6, uptime);
        DateTimeFormatter time = DateTimeFormatter.ofPattern(TIME);
        for (StartupTimeline.TimelineEvent event : startup.getBufferedTimeline().getEvents()) {
            StartupStep step = event.getStartupStep();
            StringBuilder tags = new StringBuilder();
            step.getTags().forEach((tag) -> tags.append(tag.getKey()).append('=').append(tag.getValue()).append(';'));
            System.out.printf(Locale.ROOT, "STEP %s %s %d %d %s %s%n", step.getName(), local(event.getStartTime(), time),
                    event.getDuration().toNanos() / 1000, step.getId(),
                    (step.getParentId() != null) ? step.getParentId() : -1, tags.toString().replace(' ', '_'));
        }
        context.close();
    }

    private static String local(Instant instant, DateTimeFormatter format) {
        return LocalTime.ofInstant(instant, ZoneId.systemDefault()).format(format);
    }
}
