package dev.skail.http;

import java.io.IOException;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Adds the running command step's idempotency key to requests made with {@code RestClient} or
 * {@code RestTemplate}, in the {@code Idempotency-Key} header (configurable). The key is the same on every attempt
 * of the step, so the server recognises a retry. Outside a command, and when the request has the header already,
 * nothing is added.
 */
public class IdempotencyKeyInterceptor implements ClientHttpRequestInterceptor {

    private final String header;

    public IdempotencyKeyInterceptor(String header) {
        this.header = header;
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        String key = IdempotencyKeys.current();
        if (key != null && !request.getHeaders().containsHeader(this.header)) {
            request.getHeaders().set(this.header, key);
        }
        return execution.execute(request, body);
    }
}
