package dev.skail.http;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.SkailStep;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTestConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls made inside a command with the auto-configured RestClient, RestTemplate and WebClient builders carry the
 * step's idempotency key: the same on every retry of a step, another for the next step.
 */
@SpringBootTest(classes = IdempotencyKeyHttpTests.HttpApp.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
        "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms" })
class IdempotencyKeyHttpTests {

    static final WireMockServer gateway = new WireMockServer(options().dynamicPort());

    @Autowired
    SkailClient client;

    @Autowired
    SkailAwait await;

    @BeforeAll
    static void startGateway() {
        gateway.start();
    }

    @AfterAll
    static void stopGateway() {
        gateway.stop();
    }

    @DynamicPropertySource
    static void gatewayUrl(DynamicPropertyRegistry registry) {
        registry.add("test.gateway", gateway::baseUrl);
    }

    @BeforeEach
    void stubs() {
        gateway.resetAll();
        gateway.stubFor(post(urlEqualTo("/ok")).willReturn(aResponse().withStatus(200).withBody("ok")));
        // /flaky does its work, then the command fails twice as if the answer had timed out
        gateway.stubFor(post(urlEqualTo("/flaky")).willReturn(aResponse().withStatus(200).withBody("ok")));
    }

    @Test
    void restClientSendsTheSameKeyOnEveryRetryOfAStepAndAnotherForTheNextStep() {
        assertSameKeyPerStep("viaRestClient", "rest-client-1");
    }

    @Test
    void restTemplateSendsTheKeyToo() {
        assertSameKeyPerStep("viaRestTemplate", "rest-template-1");
    }

    @Test
    void webClientSendsTheKeyToo() {
        assertSameKeyPerStep("viaWebClient", "web-client-1");
    }

    @Test
    void callsOutsideACommandCarryNoKey() {
        this.client.trigger("viaRestClient", "outside-1", "outside-1");
        this.await.status("outside-1", ExecutionStatus.COMPLETED);
        gateway.resetRequests();

        this.httpCalls.restClient.post().uri(gateway.baseUrl() + "/ok").retrieve().toBodilessEntity();

        assertThat(gateway.findAll(postRequestedFor(urlEqualTo("/ok"))).get(0).containsHeader("Idempotency-Key"))
            .isFalse();
    }

    @Autowired
    HttpCalls httpCalls;

    private void assertSameKeyPerStep(String function, String taskId) {
        this.client.trigger(function, taskId, taskId);

        this.await.status(taskId, ExecutionStatus.COMPLETED);

        List<SkailStep> steps = this.client.history(taskId).steps();
        List<String> flakyKeys = keys("/flaky", taskId);
        List<String> okKeys = keys("/ok", taskId);
        // the first step failed twice before it succeeded: three calls, one key, the step's
        assertThat(flakyKeys).hasSize(3).containsOnly(steps.get(0).idempotencyKey());
        assertThat(okKeys).containsExactly(steps.get(1).idempotencyKey());
        assertThat(steps.get(0).idempotencyKey()).isNotEqualTo(steps.get(1).idempotencyKey());
    }

    private static List<String> keys(String path, String taskId) {
        return gateway.findAll(postRequestedFor(urlEqualTo(path))).stream()
            .filter((request) -> request.getBodyAsString().equals(taskId))
            .map((LoggedRequest request) -> request.getHeader("Idempotency-Key"))
            .toList();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ HttpCalls.class, SkailTestConfiguration.class })
    static class HttpApp {

    }

    public static class HttpCalls {

        final RestClient restClient;

        final RestTemplate restTemplate;

        final WebClient webClient;

        private final ConcurrentHashMap<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        private final String gateway;

        public HttpCalls(RestClient.Builder restClient, RestTemplateBuilder restTemplate, WebClient.Builder webClient,
                org.springframework.core.env.Environment environment) {
            this.restClient = restClient.build();
            this.restTemplate = restTemplate.build();
            this.webClient = webClient.build();
            this.gateway = environment.getRequiredProperty("test.gateway");
        }

        @SkailFunction
        public void viaRestClient(String id) {
            call(id, "/flaky", "rest-client");
            call(id, "/ok", "rest-client");
        }

        @SkailFunction
        public void viaRestTemplate(String id) {
            call(id, "/flaky", "rest-template");
            call(id, "/ok", "rest-template");
        }

        @SkailFunction
        public void viaWebClient(String id) {
            call(id, "/flaky", "web-client");
            call(id, "/ok", "web-client");
        }

        @SkailCommand(retryCount = 5)
        public void call(String id, String path, String how) {
            String url = this.gateway + path;
            switch (how) {
                case "rest-client" -> this.restClient.post().uri(url).body(id).retrieve().toBodilessEntity();
                case "rest-template" -> this.restTemplate.postForEntity(url, id, String.class);
                default -> this.webClient.post().uri(url).bodyValue(id).retrieve().toBodilessEntity().block();
            }
            if (path.equals("/flaky") && this.runs.computeIfAbsent(id, (k) -> new AtomicInteger()).incrementAndGet() < 3) {
                throw new IllegalStateException("the gateway's answer timed out");
            }
        }
    }
}
