package dev.skail.web;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

/**
 * The Monitor at {@code /skail}: a page served from the starter's jar (no front-end build) that lists executions,
 * shows each one's timeline with its attempts and its parent and children, refreshes itself, and resumes, cancels,
 * fires and downloads through the HTTP API. Everything it shows is inserted as text, never as HTML; a strict
 * Content-Security-Policy forbids inline scripts besides.
 */
@RestController
public class SkailMonitorController {

    private static final Map<String, MediaType> FILES = Map.of("monitor.js",
            MediaType.valueOf("text/javascript;charset=UTF-8"), "monitor.css",
            MediaType.valueOf("text/css;charset=UTF-8"));

    private static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    private final SkailApiKey apiKey;

    public SkailMonitorController(SkailApiKey apiKey) {
        this.apiKey = apiKey;
    }

    @GetMapping(path = "/skail", produces = MediaType.TEXT_HTML_VALUE)
    ResponseEntity<byte[]> page(HttpServletRequest request) throws IOException {
        this.apiKey.check(request);
        return file("index.html", MediaType.valueOf("text/html;charset=UTF-8"));
    }

    /** The page's links are relative to {@code /skail}: {@code /skail/} redirects there. */
    @GetMapping("/skail/")
    ResponseEntity<Void> slash(HttpServletRequest request) {
        return ResponseEntity.status(302)
            .location(ServletUriComponentsBuilder.fromContextPath(request).path("/skail").build().toUri())
            .build();
    }

    @GetMapping("/skail/{file:monitor\\.(?:js|css)}")
    ResponseEntity<byte[]> asset(@PathVariable String file, HttpServletRequest request) throws IOException {
        this.apiKey.check(request);
        return file(file, FILES.get(file));
    }

    @ExceptionHandler(SkailApiKey.Unauthorized.class)
    ResponseEntity<ProblemDetail> unauthorized(SkailApiKey.Unauthorized ex) {
        return SkailApiController.unauthorizedProblem();
    }

    private static ResponseEntity<byte[]> file(String name, MediaType type) throws IOException {
        try (InputStream in = new ClassPathResource("dev/skail/web/monitor/" + name).getInputStream()) {
            return ResponseEntity.ok()
                .contentType(type)
                .header("Content-Security-Policy", CSP)
                .header("X-Content-Type-Options", "nosniff")
                .header("Cache-Control", "no-cache")
                .body(in.readAllBytes());
        }
    }
}
