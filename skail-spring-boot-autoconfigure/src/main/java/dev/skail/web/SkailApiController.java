package dev.skail.web;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import dev.skail.ExecutionStatus;
import dev.skail.SkailConflictException;
import dev.skail.SkailException;
import dev.skail.SkailExecution;
import dev.skail.SkailHistory;
import dev.skail.SkailInvalidRequestException;
import dev.skail.SkailNotFoundException;
import dev.skail.SkailPage;
import dev.skail.SkailQuery;
import dev.skail.SkailUnavailableException;
import dev.skail.runtime.SkailJson;
import dev.skail.runtime.SkailRuntime;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.MissingNode;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

/**
 * The skail HTTP API of the embedded platform: trigger an execution, fire events at it, read it and its history. Errors are
 * {@code application/problem+json} answers that name the problem; a refused request records nothing.
 */
@RestController
public class SkailApiController {

    /** Header that carries the API key when {@code skail.http.api-key} is set. */
    public static final String API_KEY_HEADER = SkailApiKey.HEADER;

    private final SkailRuntime runtime;

    private final SkailJson json;

    private final long maxBodySize;

    private final SkailApiKey apiKey;

    private volatile Duration maxWait = Duration.ofSeconds(30);

    private volatile int maxBulk = 1000;

    public SkailApiController(SkailRuntime runtime, long maxBodySize, SkailApiKey apiKey) {
        this.runtime = runtime;
        this.json = runtime.json();
        this.maxBodySize = maxBodySize;
        this.apiKey = apiKey;
    }

    @PostMapping(path = "/trigger/{workload}/{version}/{function}/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> trigger(@PathVariable String workload, @PathVariable String version,
            @PathVariable String function, @PathVariable String id, HttpServletRequest request)
            throws IOException {
        this.apiKey.check(request);
        requireNoCrossSiteForm(request);
        JsonNode arguments = readBody(request);
        SkailRuntime.Triggered triggered = this.runtime.trigger(workload, version, function, id, arguments);
        URI location = ServletUriComponentsBuilder.fromContextPath(request)
            .path("/api/v1/executions/{id}")
            .buildAndExpand(id)
            .toUri();
        return json(ResponseEntity.status(HttpStatus.ACCEPTED).location(location), triggered.execution());
    }

    @PostMapping(path = "/api/v1/fire/{workload}/{version}/{taskId}/{event}",
            produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> fire(@PathVariable String workload, @PathVariable String version,
            @PathVariable String taskId, @PathVariable String event, HttpServletRequest request)
            throws IOException {
        this.apiKey.check(request);
        requireNoCrossSiteForm(request);
        JsonNode payload = readBody(request);
        this.runtime.fire(workload, version, taskId, event, payload.isMissingNode() ? null : this.json.write(payload),
                request.getHeader("Idempotency-Key"));
        return json(ResponseEntity.status(HttpStatus.ACCEPTED), this.runtime.find(taskId)
            .orElseThrow(() -> new SkailNotFoundException("Unknown execution '" + taskId + "'")));
    }

    /**
     * A page of the executions the filters match, newest first (see {@link ExecutionFilters} for the parameters).
     */
    @GetMapping(path = "/api/v1/executions", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> executions(HttpServletRequest request) {
        this.apiKey.check(request);
        SkailPage page = this.runtime.search(ExecutionFilters.query(request, true));
        return json(ResponseEntity.ok(), new ExecutionPage(this.runtime.settings().workload(),
                this.runtime.settings().version(), page.items(), page.page(), page.size(), page.hasMore()));
    }

    /**
     * How many executions the filters match, per status (the {@code status} filter left aside, so that every count
     * is there), and in all: {@code {"PENDING":0,"RUNNING":0,"WAITING":0,"COMPLETED":0,"FAILED":0,"CANCELLED":0,
     * "total":0}}.
     */
    @GetMapping(path = "/api/v1/executions/counts", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> counts(HttpServletRequest request) {
        this.apiKey.check(request);
        Map<ExecutionStatus, Long> counts = this.runtime.count(ExecutionFilters.query(request, false));
        Map<String, Long> body = new LinkedHashMap<>();
        long total = 0;
        for (ExecutionStatus status : ExecutionStatus.values()) {
            long count = counts.getOrDefault(status, 0L);
            body.put(status.name(), count);
            total += count;
        }
        body.put("total", total);
        return json(ResponseEntity.ok(), body);
    }

    /**
     * Cancels the executions the filters match that have not ended (PENDING, RUNNING, WAITING), at most
     * {@code skail.http.max-bulk} of them, newest first, when {@code expected} is still how many match.
     */
    @PostMapping(path = "/api/v1/executions/cancel", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> cancelAll(HttpServletRequest request) {
        return bulk(SkailRuntime.BulkAction.CANCEL, request);
    }

    /**
     * Resumes the FAILED executions the filters match, at most {@code skail.http.max-bulk} of them, newest first,
     * when {@code expected} is still how many match.
     */
    @PostMapping(path = "/api/v1/executions/resume", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> resumeAll(HttpServletRequest request) {
        return bulk(SkailRuntime.BulkAction.RESUME, request);
    }

    private ResponseEntity<String> bulk(SkailRuntime.BulkAction action, HttpServletRequest request) {
        this.apiKey.check(request);
        requireNoCrossSiteForm(request);
        SkailQuery query = ExecutionFilters.query(request, false);
        long expected = ExecutionFilters.expected(request);
        SkailRuntime.BulkOutcome outcome = this.runtime.bulk(action, query, expected, this.maxBulk);
        Map<String, Long> body = new LinkedHashMap<>();
        body.put("matched", outcome.matched());
        body.put("acted", (long) outcome.acted());
        body.put("skipped", outcome.skipped());
        return json(ResponseEntity.ok(), body);
    }

    /** The most executions one bulk cancel or resume acts on ({@code skail.http.max-bulk}). */
    public void setMaxBulk(int maxBulk) {
        this.maxBulk = Math.max(1, maxBulk);
    }

    @GetMapping(path = "/api/v1/executions/{taskId}", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> execution(@PathVariable String taskId, HttpServletRequest request) {
        this.apiKey.check(request);
        return json(ResponseEntity.ok(), this.runtime.find(taskId)
            .orElseThrow(() -> new SkailNotFoundException("Unknown execution '" + taskId + "'")));
    }

    /**
     * The execution once it has ended (COMPLETED, FAILED or CANCELLED), or as it stands when the wait runs out: the
     * wait is {@code ?wait=10s} ({@code 500ms}, {@code 2m}, ISO-8601 {@code PT10S}, or a number of seconds), capped at
     * {@code skail.http.max-wait}. No servlet thread is held meanwhile (an asynchronous request); the end is signalled
     * like {@link dev.skail.SkailHandle}'s.
     */
    @GetMapping(path = "/api/v1/executions/{taskId}", params = "wait", produces = MediaType.APPLICATION_JSON_VALUE)
    DeferredResult<ResponseEntity<String>> executionWhenEnded(@PathVariable String taskId, @RequestParam String wait,
            HttpServletRequest request) {
        this.apiKey.check(request);
        Duration timeout = waitParameter(wait);
        SkailExecution execution = this.runtime.find(taskId)
            .orElseThrow(() -> new SkailNotFoundException("Unknown execution '" + taskId + "'"));
        // the container's own async timeout is only a backstop: the wait below answers first
        DeferredResult<ResponseEntity<String>> answer = new DeferredResult<>(timeout.toMillis() + 10_000);
        if (execution.status().isTerminal() || timeout.isZero()) {
            answer.setResult(json(ResponseEntity.ok(), execution));
            return answer;
        }
        CompletableFuture<SkailExecution> ended = this.runtime.awaitEnd(taskId);
        answer.onTimeout(() -> ended.cancel(false));
        answer.onError((failure) -> ended.cancel(false));
        answer.onCompletion(() -> ended.cancel(false));
        ended.completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((done, failure) -> {
            if (answer.isSetOrExpired()) {
                return;
            }
            try {
                if (failure != null) {
                    answer.setErrorResult((failure instanceof CompletionException && failure.getCause() != null)
                            ? failure.getCause() : failure);
                    return;
                }
                SkailExecution now = (done != null) ? done : this.runtime.find(taskId)
                    .orElseThrow(() -> new SkailNotFoundException("Unknown execution '" + taskId + "'"));
                answer.setResult(json(ResponseEntity.ok(), now));
            }
            catch (RuntimeException ex) {
                answer.setErrorResult(ex);
            }
        });
        return answer;
    }

    /** The longest {@code ?wait=} honoured ({@code skail.http.max-wait}); longer waits are cut to it. */
    public void setMaxWait(Duration maxWait) {
        this.maxWait = maxWait;
    }

    private Duration waitParameter(String wait) {
        Duration timeout;
        try {
            timeout = DurationStyle.detectAndParse(wait.trim(), ChronoUnit.SECONDS);
        }
        catch (RuntimeException ex) {
            throw new SkailInvalidRequestException("Invalid wait '" + wait + "': use e.g. 10s, 500ms or PT10S");
        }
        if (timeout.isNegative()) {
            throw new SkailInvalidRequestException("Invalid wait '" + wait + "': it must not be negative");
        }
        return (timeout.compareTo(this.maxWait) > 0) ? this.maxWait : timeout;
    }

    @PostMapping(path = "/api/v1/executions/{taskId}/resume", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> resume(@PathVariable String taskId, HttpServletRequest request) {
        this.apiKey.check(request);
        requireNoCrossSiteForm(request);
        return json(ResponseEntity.status(HttpStatus.ACCEPTED), this.runtime.resume(taskId));
    }

    @PostMapping(path = "/api/v1/executions/{taskId}/cancel", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> cancel(@PathVariable String taskId, HttpServletRequest request) {
        this.apiKey.check(request);
        requireNoCrossSiteForm(request);
        return json(ResponseEntity.status(HttpStatus.ACCEPTED), this.runtime.cancel(taskId));
    }

    @GetMapping(path = "/api/v1/executions/{taskId}/history", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> history(@PathVariable String taskId,
            @RequestParam(defaultValue = "false") boolean download, HttpServletRequest request) {
        this.apiKey.check(request);
        SkailHistory history = this.runtime.history(taskId);
        ResponseEntity.BodyBuilder response = ResponseEntity.ok();
        if (download) {
            response.header("Content-Disposition", org.springframework.http.ContentDisposition.attachment()
                .filename("skail-history-" + taskId.replaceAll("[^A-Za-z0-9._-]", "_") + ".json")
                .build()
                .toString());
        }
        return json(response, history);
    }

    /** The API's JSON is skail's own, whatever the application's Jackson settings (naming, inclusion ...). */
    private ResponseEntity<String> json(ResponseEntity.BodyBuilder response, Object body) {
        return response.contentType(MediaType.APPLICATION_JSON).body(this.json.write(body));
    }

    /**
     * A POST must say it is JSON ({@code Content-Type: application/json}) or carry skail's own header: a form that
     * another site makes the browser send can do neither without a CORS preflight, which fails.
     */
    private static void requireNoCrossSiteForm(HttpServletRequest request) {
        String type = request.getContentType();
        boolean json = type != null && MediaType.parseMediaType(type).isCompatibleWith(MediaType.APPLICATION_JSON);
        boolean jsonSuffix = type != null && MediaType.parseMediaType(type).getSubtype().endsWith("+json");
        if (!json && !jsonSuffix && request.getHeader(SkailApiKey.REQUEST_HEADER) == null
                && request.getHeader(SkailApiKey.HEADER) == null) {
            throw new UnsupportedBody(type);
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

    /** A bulk request whose confirmed count is stale: the current count, to confirm again. */
    @ExceptionHandler(SkailRuntime.CountChanged.class)
    ResponseEntity<ProblemDetail> countChanged(SkailRuntime.CountChanged ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
        problem.setTitle("Count changed");
        problem.setProperty("matched", ex.matched());
        problem.setProperty("expected", ex.expected());
        return ResponseEntity.status(HttpStatus.CONFLICT).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }

    @ExceptionHandler(SkailInvalidRequestException.class)
    ResponseEntity<ProblemDetail> invalid(SkailException ex) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid request", ex.getMessage());
    }

    @ExceptionHandler(SkailUnavailableException.class)
    ResponseEntity<ProblemDetail> unavailable(SkailUnavailableException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
        problem.setTitle("Store unavailable");
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
            .header("Retry-After", Long.toString(ex.retryAfterSeconds()))
            .contentType(MediaType.APPLICATION_PROBLEM_JSON)
            .body(problem);
    }

    @ExceptionHandler(org.springframework.web.method.annotation.MethodArgumentTypeMismatchException.class)
    ResponseEntity<ProblemDetail> badParameter(
            org.springframework.web.method.annotation.MethodArgumentTypeMismatchException ex) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid request",
                "Parameter '" + ex.getName() + "' is not a valid " + ex.getRequiredType());
    }

    @ExceptionHandler(UnsupportedBody.class)
    ResponseEntity<ProblemDetail> unsupported(UnsupportedBody ex) {
        return problem(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Unsupported media type", ex.getMessage());
    }

    @ExceptionHandler(PayloadTooLarge.class)
    ResponseEntity<ProblemDetail> tooLarge(PayloadTooLarge ex) {
        return problem(HttpStatus.CONTENT_TOO_LARGE, "Body too large",
                "The body is larger than skail.http.max-body-size (" + this.maxBodySize + " bytes)");
    }

    @ExceptionHandler(SkailApiKey.Unauthorized.class)
    ResponseEntity<ProblemDetail> unauthorized(SkailApiKey.Unauthorized ex) {
        return unauthorizedProblem();
    }

    static ResponseEntity<ProblemDetail> unauthorizedProblem() {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.UNAUTHORIZED,
                "skail routes demand the key of skail.http.api-key in the " + API_KEY_HEADER
                        + " header, or as the password of HTTP Basic authentication");
        problem.setTitle("Unauthorized");
        return ResponseEntity.status(HttpStatus.UNAUTHORIZED)
            .header("WWW-Authenticate", "Basic realm=\"skail\", charset=\"UTF-8\"")
            .contentType(MediaType.APPLICATION_PROBLEM_JSON)
            .body(problem);
    }

    private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String title, @Nullable String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }

    /**
     * A page of executions.
     *
     * @param workload the workload this runtime serves
     * @param version its version
     * @param items the executions, newest first
     * @param page the page number, from 0
     * @param size the page size
     * @param hasMore whether a next page exists
     */
    public record ExecutionPage(String workload, String version, List<SkailExecution> items, int page, int size,
            boolean hasMore) {
    }

    static final class UnsupportedBody extends RuntimeException {

        private static final long serialVersionUID = 1L;

        UnsupportedBody(@Nullable String type) {
            super("skail's POST routes take application/json (this request says " + type + "), or the "
                    + SkailApiKey.REQUEST_HEADER + " header");
        }
    }

    static final class PayloadTooLarge extends RuntimeException {

        private static final long serialVersionUID = 1L;

        PayloadTooLarge(long length) {
            super("body of " + length + " bytes");
        }
    }

}
