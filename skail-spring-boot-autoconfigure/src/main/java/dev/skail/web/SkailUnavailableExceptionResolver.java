package dev.skail.web;

import java.io.IOException;

import dev.skail.SkailUnavailableException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a {@link SkailUnavailableException} that leaves an application's own controller (e.g. from
 * {@link dev.skail.SkailClient}) with {@code 503 Service Unavailable} and a {@code Retry-After} header, as the other
 * skail exceptions answer with their status. It comes after the application's own exception handlers, which win.
 */
public class SkailUnavailableExceptionResolver implements HandlerExceptionResolver, Ordered {

    @Override
    public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
            @Nullable Object handler, Exception ex) {
        if (!(ex instanceof SkailUnavailableException unavailable) || response.isCommitted()) {
            return null;
        }
        try {
            response.setHeader("Retry-After", Long.toString(unavailable.retryAfterSeconds()));
            response.sendError(HttpStatus.SERVICE_UNAVAILABLE.value(), unavailable.getMessage());
            return new ModelAndView();
        }
        catch (IOException failure) {
            return null;
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
