package dev.skail.sample;

import java.math.BigDecimal;
import java.net.http.HttpClient;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.springframework.core.env.Environment;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientResponseException;

/**
 * The payment gateway's HTTP client (an Asaas-like API: {@code POST /charges}, {@code GET /charges?externalReference=}).
 * Built from the application's {@link RestClient.Builder}, so every call made inside a command also carries the
 * step's {@code Idempotency-Key} header.
 */
@Component
public class GatewayDePagamento {

    private final RestClient.Builder builder;

    private final SampleProperties properties;

    private final Environment environment;

    private volatile RestClient client;

    public GatewayDePagamento(RestClient.Builder builder, SampleProperties properties, Environment environment) {
        this.builder = builder;
        this.properties = properties;
        this.environment = environment;
    }

    /** Creates a charge. A timeout or a 5xx is inconclusive: the charge may exist (seed 003). */
    public Cobranca criarCobranca(UUID pedidoId, BigDecimal valor, String externalReference) throws GatewayException {
        try {
            return client().post()
                .uri("/charges")
                .body(Map.of("pedidoId", pedidoId, "valor", valor, "externalReference", externalReference))
                .retrieve()
                .body(Cobranca.class);
        }
        catch (ResourceAccessException | RestClientResponseException ex) {
            throw new GatewayException("no conclusive answer from the payment gateway: " + ex.getMessage());
        }
    }

    /** The charge made with this external reference, if the gateway has one. */
    public Optional<Cobranca> buscarPorReferencia(String externalReference) throws GatewayException {
        try {
            Charges charges = client().get()
                .uri("/charges?externalReference={reference}", externalReference)
                .retrieve()
                .body(Charges.class);
            return (charges != null) ? charges.data().stream().findFirst() : Optional.empty();
        }
        catch (ResourceAccessException | RestClientResponseException ex) {
            throw new GatewayException("could not look the charge up: " + ex.getMessage());
        }
    }

    private RestClient client() {
        RestClient client = this.client;
        if (client == null) {
            String url = this.properties.gatewayUrl();
            if (url == null || url.isBlank()) {
                // the built-in fake gateway of this application, once its port is known
                url = "http://localhost:" + this.environment.getProperty("local.server.port", "8080") + "/fake-gateway";
            }
            JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(HttpClient.newHttpClient());
            requests.setReadTimeout(this.properties.gatewayTimeout());
            client = this.builder.clone().baseUrl(url).requestFactory(requests).build();
            this.client = client;
        }
        return client;
    }

    /**
     * A page of charges.
     *
     * @param data the charges
     */
    public record Charges(List<Cobranca> data) {
    }
}
