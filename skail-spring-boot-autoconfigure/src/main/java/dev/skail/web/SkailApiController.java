package dev.skail.web;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import dev.skail.SkailConflictException;
import dev.skail.SkailException;
import dev.skail.SkailExecution;
import dev.skail.SkailHistory;
import dev.skail.SkailInvalidRequestException;
import dev.skail.SkailNotFoundException;
import dev.skail.runtime.SkailJson;
import dev.skail.runtime.SkailRuntime;
import dev.skail.runtime.SkailWorker;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.MissingNode;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The skail HTTP API of the embedded platform: trigger an execution, fire events at it, read it and its history. Errors are
 * {@code application/problem+json} answers that name the problem; a refused request records nothing.
 */
@RestController
public class SkailApiController {

    /** Header that carries the API key when {@code skail.http.api-key} is set. */
    public static final String API_KEY_HEADER = "X-Skail-Api-Key";

    private final SkailRuntime runtime;

    private final @Nullable SkailWorker worker;

    private final SkailJson json;

    private final long maxBodySize;

    private final byte @Nullable [] apiKey;

    public SkailApiController(SkailRuntime runtime, @Nullable SkailWorker worker, long maxBodySize,
            @Nullable String apiKey) {
        this.runtime = runtime;
        this.worker = worker;
        this.json = runtime.json();
        this.maxBodySize = maxBodySize;
        this.apiKey = (apiKey != null && !apiKey.isEmpty()) ? apiKey.getBytes(StandardCharsets.UTF_8) : null;
    }

    @PostMapping(path = "/trigger/{workload}/{version}/{function}/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<SkailExecution> trigger(@PathVariable String workload, @PathVariable String version,
            @PathVariable String function, @PathVariable String id,
            @RequestHeader(name = API_KEY_HEADER, required = false) @Nullable String key, HttpServletRequest request)
            throws IOException {
        authorize(key);
        JsonNode arguments = readBody(request);
        SkailRuntime.Triggered triggered = this.runtime.trigger(workload, version, function, id, arguments);
        if (triggered.created() && this.worker != null) {
            this.worker.nudge();
        }
        return ResponseEntity.status(HttpStatus.ACCEPTED)
            .location(URI.create("/api/v1/executions/" + id))
            .body(triggered.execution());
    }

    @PostMapping(path = "/api/v1/fire/{workload}/{version}/{taskId}/{event}",
            produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<SkailExecution> fire(@PathVariable String workload, @PathVariable String version,
            @PathVariable String taskId, @PathVariable String event,
            @RequestHeader(name = API_KEY_HEADER, required = false) @Nullable String key, HttpServletRequest request)
            throws IOException {
        authorize(key);
        JsonNode payload = readBody(request);
        this.runtime.fire(workload, version, taskId, event, payload.isMissingNode() ? null : this.json.write(payload));
        if (this.worker != null) {
            this.worker.nudge();
        }
        return ResponseEntity.status(HttpStatus.ACCEPTED)
            .body(this.runtime.find(taskId).orElseThrow(() -> new SkailNotFoundException("Unknown execution '"
                    + taskId + "'")));
    }

    @GetMapping(path = "/api/v1/executions/{taskId}", produces = MediaType.APPLICATION_JSON_VALUE)
    SkailExecution execution(@PathVariable String taskId,
            @RequestHeader(name = API_KEY_HEADER, required = false) @Nullable String key) {
        authorize(key);
        return this.runtime.find(taskId)
            .orElseThrow(() -> new SkailNotFoundException("Unknown execution '" + taskId + "'"));
    }

    @PostMapping(path = "/api/v1/executions/{taskId}/resume", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<SkailExecution> resume(@PathVariable String taskId,
            @RequestHeader(name = API_KEY_HEADER, required = false) @Nullable String key) {
        authorize(key);
        SkailExecution resumed = this.runtime.resume(taskId);
        if (this.worker != null) {
            this.worker.nudge();
        }
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(resumed);
    }

    @GetMapping(path = "/api/v1/executions/{taskId}/history", produces = MediaType.APPLICATION_JSON_VALUE)
    SkailHistory history(@PathVariable String taskId,
            @RequestHeader(name = API_KEY_HEADER, required = false) @Nullable String key) {
        authorize(key);
        return this.runtime.history(taskId);
    }

    private void authorize(@Nullable String key) {
        if (this.apiKey == null) {
            return;
        }
        byte[] given = (key != null) ? key.getBytes(StandardCharsets.UTF_8) : new byte[0];
        if (!MessageDigest.isEqual(this.apiKey, given)) {
            throw new Unauthorized();
        }
    }

    private JsonNode readBody(HttpServletRequest request) throws IOException {
        if (request.getContentLengthLong() > this.maxBodySize) {
            throw new PayloadTooLarge(request.getContentLengthLong());
        }
        byte[] body;
        try (InputStream in = request.getInputStream()) {
            body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, this.maxBodySize + 1));
        }
        if (body.length > this.maxBodySize) {
            throw new PayloadTooLarge(-1);
        }
        if (new String(body, StandardCharsets.UTF_8).isBlank()) {
            return MissingNode.getInstance();
        }
        try {
            return this.json.mapper().readTree(body);
        }
        catch (JacksonException ex) {
            throw new SkailInvalidRequestException("The body is not valid JSON: " + ex.getOriginalMessage());
        }
    }

    @ExceptionHandler(SkailNotFoundException.class)
    ResponseEntity<ProblemDetail> notFound(SkailException ex) {
        return problem(HttpStatus.NOT_FOUND, "Not found", ex.getMessage());
    }

    @ExceptionHandler(SkailConflictException.class)
    ResponseEntity<ProblemDetail> conflict(SkailException ex) {
        return problem(HttpStatus.CONFLICT, "Conflict", ex.getMessage());
    }

    @ExceptionHandler(SkailInvalidRequestException.class)
    ResponseEntity<ProblemDetail> invalid(SkailException ex) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid request", ex.getMessage());
    }

    @ExceptionHandler(PayloadTooLarge.class)
    ResponseEntity<ProblemDetail> tooLarge(PayloadTooLarge ex) {
        return problem(HttpStatus.CONTENT_TOO_LARGE, "Body too large",
                "The body is larger than skail.http.max-body-size (" + this.maxBodySize + " bytes)");
    }

    @ExceptionHandler(Unauthorized.class)
    ResponseEntity<ProblemDetail> unauthorized(Unauthorized ex) {
        return problem(HttpStatus.UNAUTHORIZED, "Unauthorized",
                "skail routes demand the key of skail.http.api-key in the " + API_KEY_HEADER + " header");
    }

    private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String title, @Nullable String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }

    static final class PayloadTooLarge extends RuntimeException {

        private static final long serialVersionUID = 1L;

        PayloadTooLarge(long length) {
            super("body of " + length + " bytes");
        }
    }

    static final class Unauthorized extends RuntimeException {

        private static final long serialVersionUID = 1L;

        Unauthorized() {
            super("missing or wrong API key");
        }
    }
}
