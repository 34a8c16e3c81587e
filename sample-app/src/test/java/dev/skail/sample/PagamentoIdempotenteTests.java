package dev.skail.sample;

import java.math.BigDecimal;
import java.util.List;
import java.util.UUID;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailStep;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 003's case against a payment gateway played by WireMock: the gateway creates the charge but its answer
 * times out; the retry looks the charge up by its externalReference and uses it: exactly one charge is created.
 */
@SkailTest(properties = { "skail.retry.backoff.initial=0ms", "skail.retry.backoff.max=0ms",
        "sample.prazo-confirmacao=0s", "sample.gateway-timeout=1s", "sample.latency=0ms" })
class PagamentoIdempotenteTests {

    static final WireMockServer gateway = new WireMockServer(options().dynamicPort());

    @Autowired
    SkailClient skail;

    @Autowired
    SkailAwait await;

    @BeforeAll
    static void start() {
        gateway.start();
    }

    @AfterAll
    static void stop() {
        gateway.stop();
    }

    @DynamicPropertySource
    static void gatewayUrl(DynamicPropertyRegistry registry) {
        registry.add("sample.gateway-url", gateway::baseUrl);
    }

    @BeforeEach
    void reset() {
        gateway.resetAll();
    }

    @Test
    void chargeCreatedButTimedOutIsFoundByItsExternalReferenceAndNotCreatedAgain() {
        // the gateway creates the charge, but answers after the client gave up (timeout at 1 s, so that the lookup that
        // follows, the first response WireMock templates, fits in it on a loaded machine)
        gateway.stubFor(post(urlEqualTo("/charges")).inScenario("charge").whenScenarioStateIs(Scenario.STARTED)
            .willReturn(aResponse().withStatus(201).withFixedDelay(3000)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"id\":\"ch_1\",\"externalReference\":\"{{jsonPath request.body '$.externalReference'}}\","
                        + "\"status\":\"APPROVED\"}")
                .withTransformers("response-template"))
            .willSetStateTo("created"));
        gateway.stubFor(get(urlPathEqualTo("/charges")).inScenario("charge").whenScenarioStateIs("created")
            .willReturn(okJson("{\"data\":[{\"id\":\"ch_1\",\"externalReference\":\"{{request.query.externalReference}}\","
                    + "\"status\":\"APPROVED\"}]}").withTransformers("response-template")));

        SkailExecution done = order("pedido-timeout");

        assertThat(done.result(String.class)).isEqualTo("CONFIRMADO");
        gateway.verify(1, postRequestedFor(urlEqualTo("/charges")));
        SkailStep charge = this.skail.history(done.taskId()).steps().get(2);
        assertThat(charge.name()).isEqualTo("cobrarCartao");
        assertThat(charge.attempts()).extracting(SkailAttempt::decision).containsExactly("RETRY", "RECORDED");
        LoggedRequest created = gateway.findAll(postRequestedFor(urlEqualTo("/charges"))).get(0);
        assertThat(JsonMapper.shared().readTree(created.getBodyAsString()).get("externalReference").asString())
            .isEqualTo(charge.idempotencyKey());
        assertThat(created.getHeader("Idempotency-Key")).isEqualTo(charge.idempotencyKey());
        gateway.verify(1, getRequestedFor(urlPathEqualTo("/charges"))
            .withQueryParam("externalReference", equalTo(charge.idempotencyKey())));
    }

    @Test
    void chargeNotCreatedBeforeTheFailureIsCreatedOnTheRetryWithTheSameReference() {
        gateway.stubFor(post(urlEqualTo("/charges")).inScenario("down").whenScenarioStateIs(Scenario.STARTED)
            .willReturn(aResponse().withStatus(503)).willSetStateTo("up"));
        gateway.stubFor(get(urlPathEqualTo("/charges")).willReturn(okJson("{\"data\":[]}")));
        gateway.stubFor(post(urlEqualTo("/charges")).inScenario("down").whenScenarioStateIs("up")
            .willReturn(aResponse().withStatus(201).withHeader("Content-Type", "application/json")
                .withBody("{\"id\":\"ch_2\",\"externalReference\":\"x\",\"status\":\"APPROVED\"}")));

        SkailExecution done = order("pedido-503");

        assertThat(done.result(String.class)).isEqualTo("CONFIRMADO");
        List<String> references = gateway.findAll(postRequestedFor(urlEqualTo("/charges"))).stream()
            .map((request) -> JsonMapper.shared().readTree(request.getBodyAsString()).get("externalReference")
                .asString())
            .toList();
        assertThat(references).hasSize(2).containsOnly(this.skail.history(done.taskId()).steps().get(2)
            .idempotencyKey());
    }

    private SkailExecution order(String taskId) {
        this.skail.trigger(taskId, Pedidos.class,
                (pedidos) -> pedidos.processarPedido(UUID.randomUUID(), new BigDecimal("150.00")));
        return this.await.status(taskId, ExecutionStatus.COMPLETED);
    }
}
