package dev.skail.http;

import reactor.core.publisher.Mono;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;

/**
 * The {@link IdempotencyKeyInterceptor} for {@code WebClient}. The key is read when the request is sent, on the
 * thread that subscribes: inside a command that blocks on the call ({@code .block()}), the command's thread.
 */
public class IdempotencyKeyExchangeFilter implements ExchangeFilterFunction {

    private final String header;

    public IdempotencyKeyExchangeFilter(String header) {
        this.header = header;
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        String key = IdempotencyKeys.current();
        if (key == null || request.headers().containsHeader(this.header)) {
            return next.exchange(request);
        }
        return next.exchange(ClientRequest.from(request).header(this.header, key).build());
    }
}
