package dev.skail.test.loja;

import java.time.Duration;

import dev.skail.ExecutionStatus;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTest;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code @SkailTest(webEnvironment = RANDOM_PORT)}: the application and skail's HTTP API on a real port. */
@SkailTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class OverHttpTests {

    @LocalServerPort
    int port;

    @Autowired
    SkailAwait await;

    @Autowired
    VirtualClock clock;

    @Test
    void anOrderTriggeredOverHttpEndsWhenItsDayHasPassed() {
        RestClient http = RestClient.create("http://localhost:" + this.port);
        ResponseEntity<String> accepted = http.post()
            .uri("/trigger/loja/v1.0.0/processarPedido/pedido-http")
            .contentType(MediaType.APPLICATION_JSON)
            .body("[\"8d7e4a36-1f0b-4c55-9a63-2f1c0c9a7b11\", 150.00]")
            .retrieve()
            .toEntity(String.class);
        assertThat(accepted.getStatusCode().is2xxSuccessful()).isTrue();

        this.await.status("pedido-http", ExecutionStatus.WAITING);
        this.clock.advance(Duration.ofHours(24));
        this.await.status("pedido-http", ExecutionStatus.COMPLETED);

        String execution = http.get().uri("/api/v1/executions/pedido-http").retrieve().body(String.class);
        assertThat(execution).contains("\"status\":\"COMPLETED\"")
            .contains("\"result\":\"CONFIRMADO\"")
            .contains(",150.00]");
    }
}
