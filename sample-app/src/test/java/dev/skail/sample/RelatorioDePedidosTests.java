package dev.skail.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailScheduleInfo;
import dev.skail.SkailStep;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTestConfiguration;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's daily orders report ({@code @SkailSchedule} on {@code relatorioDePedidos}) on virtual time: 06:00 in
 * São Paulo starts one execution with the id {@code relatorioDePedidos:<day>T09:00:00Z}; a restart does not start it
 * again; the schedule is listed over HTTP; {@code sample.relatorio-cron=-} disables it.
 */
class RelatorioDePedidosTests {

    @TempDir
    Path workDir;

    @Test
    void everyDayAt6InSaoPauloOneReportIsSentAndARestartDoesNotSendItAgain() throws Exception {
        String store = "jdbc:h2:file:" + this.workDir.resolve("store/skail") + ";FILE_LOCK=FS;WRITE_DELAY=0";
        Instant tick;
        try (ConfigurableApplicationContext app = start(store)) {
            VirtualClock clock = app.getBean(VirtualClock.class);
            ZonedDateTime now = clock.instant().atZone(ZoneOffset.UTC);
            ZonedDateTime nine = now.truncatedTo(ChronoUnit.DAYS).plusHours(9);
            tick = (nine.isAfter(now) ? nine : nine.plusDays(1)).toInstant();
            assertThat(schedule(app).nextTick()).isEqualTo(tick);

            clock.advance(Duration.between(clock.instant(), tick));

            String taskId = "relatorioDePedidos:" + tick;
            SkailExecution done = app.getBean(SkailAwait.class).status(taskId, ExecutionStatus.COMPLETED);
            LocalDate dia = LocalDate.ofInstant(tick, ZoneOffset.UTC);
            assertThat(done.result(String.class)).isEqualTo("relatório de pedidos de " + dia);
            assertThat(app.getBean(SkailClient.class).history(taskId).steps()).extracting(SkailStep::name)
                .containsExactly("now", "enviarRelatorioDePedidos");

            JsonNode listed = get(app, "/api/v1/schedules").get("items").get(0);
            assertThat(listed.get("function").asString()).isEqualTo("relatorioDePedidos");
            assertThat(listed.get("cron").asString()).isEqualTo("0 0 6 * * *");
            assertThat(listed.get("zone").asString()).isEqualTo("America/Sao_Paulo");
            assertThat(listed.get("lastTaskId").asString()).isEqualTo(taskId);
            assertThat(listed.get("nextTick").asString()).isEqualTo(tick.plus(Duration.ofDays(1)).toString());
        }

        // restarted (its virtual clock starts over at the real time, before the tick): nothing is started again,
        // and the next report is still tomorrow's
        try (ConfigurableApplicationContext restarted = start(store)) {
            assertThat(schedule(restarted).nextTick()).isEqualTo(tick.plus(Duration.ofDays(1)));
            assertThat(schedule(restarted).lastTaskId()).isEqualTo("relatorioDePedidos:" + tick);
        }
    }

    @Test
    void theReportIsDisabledByItsProperty() {
        String store = "jdbc:h2:mem:relatorio-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        try (ConfigurableApplicationContext app = start(store, "--sample.relatorio-cron=-")) {
            app.getBean(VirtualClock.class).advance(Duration.ofDays(3));

            SkailScheduleInfo schedule = schedule(app);
            assertThat(schedule.enabled()).isFalse();
            assertThat(schedule.nextTick()).isNull();
            assertThat(schedule.lastTaskId()).isNull();
        }
    }

    private static SkailScheduleInfo schedule(ConfigurableApplicationContext app) {
        return app.getBean(SkailClient.class).schedules().stream()
            .filter((schedule) -> schedule.function().equals("relatorioDePedidos"))
            .findFirst()
            .orElseThrow();
    }

    private static JsonNode get(ConfigurableApplicationContext app, String path) throws Exception {
        int port = ((WebServerApplicationContext) app).getWebServer().getPort();
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest
            .newBuilder(URI.create("http://localhost:" + port + path)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return JsonMapper.shared().readTree(response.body());
    }

    private static ConfigurableApplicationContext start(String store, String... more) {
        String[] arguments = { "--server.port=0", "--skail.store.url=" + store, "--sample.latency=0ms",
                "--skail.worker.poll-interval=1h", "--skail.schedules.poll-interval=1h",
                "--skail.worker.shutdown-timeout=5s", "--spring.main.banner-mode=off" };
        String[] all = java.util.stream.Stream.concat(java.util.Arrays.stream(arguments), java.util.Arrays.stream(more))
            .toArray(String[]::new);
        return new SpringApplicationBuilder(SampleApplication.class, SkailTestConfiguration.class).run(all);
    }
}
