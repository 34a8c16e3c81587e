package dev.skail.schedules;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailScheduleInfo;
import dev.skail.runtime.SkailRuntime;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTestConfiguration;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @SkailSchedule} on virtual time: each tick starts one execution with the id {@code {function}:{tick}}, which
 * runs as any other; a cron in a zone ticks at its local time; a disabled schedule starts nothing; the schedules are
 * listed by the client and over HTTP. The worker's and the scheduler's polls are an hour apart: advancing the clock
 * is what wakes them.
 */
@SpringBootTest(classes = SchedulesTests.ScheduleApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:schedules-${random.uuid};DB_CLOSE_DELAY=-1",
                "skail.worker.poll-interval=1h", "skail.schedules.poll-interval=1h",
                "management.endpoints.web.exposure.include=skail" })
class SchedulesTests {

    @Autowired
    SkailClient client;

    @Autowired
    SkailRuntime runtime;

    @Autowired
    SkailAwait await;

    @Autowired
    VirtualClock clock;

    @LocalServerPort
    int port;

    @Test
    void eachTickStartsOneExecutionWhoseIdIsTheFunctionAndTheTick() {
        Instant began = this.clock.instant();
        List<String> expected = new ArrayList<>();
        for (int hour = 0; hour < 3; hour++) {
            Instant tick = this.clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
            this.clock.advance(Duration.between(this.clock.instant(), tick));
            String taskId = "relatorioDePedidos:" + tick;
            SkailExecution done = this.await.status(taskId, ExecutionStatus.COMPLETED);
            assertThat(done.result(String.class)).isEqualTo("pedidos enviado por " + taskId);
            expected.add(taskId);
        }

        assertThat(ticksSince("relatorioDePedidos", began)).containsExactlyElementsOf(expected);
        assertThat(expected).allSatisfy((taskId) -> assertThat(ScheduledFlows.sent(taskId)).isEqualTo(1));
        SkailScheduleInfo schedule = schedule("relatorioDePedidos");
        assertThat(schedule.lastTaskId()).isEqualTo(expected.get(2));
        assertThat(schedule.nextTick()).isEqualTo(this.clock.instant().truncatedTo(ChronoUnit.HOURS)
            .plus(Duration.ofHours(1)));
    }

    @Test
    void aCronInAZoneTicksAtItsLocalTime() {
        // 06:30 in São Paulo (UTC-3, no daylight saving time since 2019) is 09:30 UTC
        ZonedDateTime now = this.clock.instant().atZone(ZoneOffset.UTC);
        ZonedDateTime tick = now.truncatedTo(ChronoUnit.DAYS).plusHours(9).plusMinutes(30);
        if (!tick.isAfter(now)) {
            tick = tick.plusDays(1);
        }
        assertThat(schedule("fechamentoDoCaixa").nextTick()).isEqualTo(tick.toInstant());

        this.clock.advance(Duration.between(now, tick));

        String taskId = "fechamentoDoCaixa:" + tick.toInstant();
        assertThat(taskId).endsWith("T09:30:00Z");
        assertThat(this.await.status(taskId, ExecutionStatus.COMPLETED).result(String.class))
            .isEqualTo("caixa enviado por " + taskId);
        assertThat(ScheduledFlows.sent(taskId)).isEqualTo(1);
    }

    @Test
    void aScheduleDisabledByItsPropertyStartsNothingAndIsListedAsDisabled() {
        Instant began = this.clock.instant();

        this.clock.advance(Duration.ofDays(2));
        // whatever else the jump started has run: the scheduler has seen the new time
        String relatorio = "relatorioDePedidos:" + this.clock.instant().truncatedTo(ChronoUnit.HOURS);
        this.await.status(relatorio, ExecutionStatus.COMPLETED);

        assertThat(ticksSince("cancelarPedidosExpirados", began)).isEmpty();
        SkailScheduleInfo disabled = schedule("cancelarPedidosExpirados");
        assertThat(disabled.cron()).isEqualTo("-");
        assertThat(disabled.enabled()).isFalse();
        assertThat(disabled.nextTick()).isNull();
    }

    @Test
    void theSchedulesAreListedOverHttpAndByTheActuatorEndpoint() throws Exception {
        Instant tick = this.clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
        this.clock.advance(Duration.between(this.clock.instant(), tick));
        this.await.status("relatorioDePedidos:" + tick, ExecutionStatus.COMPLETED);

        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest
            .newBuilder(URI.create("http://localhost:" + this.port + "/api/v1/schedules")).GET().build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying((type) -> assertThat(type)
            .startsWith("application/json"));
        JsonNode body = JsonMapper.shared().readTree(response.body());
        assertThat(body.get("workload").asString()).isEqualTo("vendas");
        assertThat(body.get("version").asString()).isEqualTo("v1.0.0");
        assertThat(body.get("items")).extracting((item) -> item.get("function").asString()).containsExactly(
                "cancelarPedidosExpirados", "conciliarPagamentos", "fechamentoDoCaixa", "relatorioDePedidos");
        JsonNode relatorio = body.get("items").get(3);
        assertThat(relatorio.get("cron").asString()).isEqualTo("0 0 * * * *");
        assertThat(relatorio.get("zone").asString()).isEqualTo("UTC");
        assertThat(relatorio.get("missed").asString()).isEqualTo("LAST");
        assertThat(relatorio.get("lastTick").asString()).isEqualTo(tick.toString());
        assertThat(relatorio.get("lastTaskId").asString()).isEqualTo("relatorioDePedidos:" + tick);
        assertThat(relatorio.get("nextTick").asString()).isEqualTo(tick.plus(Duration.ofHours(1)).toString());
        assertThat(relatorio.get("version").asString()).isEqualTo("v1.0.0");
        assertThat(relatorio.get("declaredHere").asBoolean()).isTrue();
        assertThat(body.get("items").get(1).get("missed").asString()).isEqualTo("ALL");
        assertThat(body.get("items").get(2).get("zone").asString()).isEqualTo("America/Sao_Paulo");
        // the tick's execution, by its id: the ':' as is or escaped
        for (String id : new String[] { "relatorioDePedidos:" + tick, "relatorioDePedidos%3A" + tick.toString()
            .replace(":", "%3A") }) {
            HttpResponse<String> execution = HttpClient.newHttpClient().send(HttpRequest
                .newBuilder(URI.create("http://localhost:" + this.port + "/api/v1/executions/" + id)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(execution.statusCode()).as(id).isEqualTo(200);
            assertThat(JsonMapper.shared().readTree(execution.body()).get("status").asString()).isEqualTo("COMPLETED");
        }
        // and the actuator endpoint lists them too
        JsonNode actuator = JsonMapper.shared().readTree(HttpClient.newHttpClient().send(HttpRequest
            .newBuilder(URI.create("http://localhost:" + this.port + "/actuator/skail")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body());
        assertThat(actuator.get("schedules").get(3).get("function").asString()).isEqualTo("relatorioDePedidos");
        assertThat(actuator.get("schedules").get(3).get("lastTaskId").asString())
            .isEqualTo("relatorioDePedidos:" + tick);
    }

    /** The ids of the function's executions whose tick is at or after {@code since}, oldest tick first. */
    private List<String> ticksSince(String function, Instant since) {
        return ScheduleRestartTests.executions(this.runtime, function).stream()
            .map(SkailExecution::taskId)
            .filter((taskId) -> !Instant.parse(taskId.substring(function.length() + 1)).isBefore(since))
            .sorted()
            .toList();
    }

    private SkailScheduleInfo schedule(String function) {
        return this.client.schedules().stream().filter((schedule) -> schedule.function().equals(function)).findFirst()
            .orElseThrow();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ ScheduledFlows.class, SkailTestConfiguration.class })
    static class ScheduleApp {

    }
}
