package dev.skail.web;

import java.util.List;

import dev.skail.SkailScheduleInfo;
import dev.skail.SkailUnavailableException;
import dev.skail.runtime.SkailRuntime;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The schedules of the HTTP API: {@code GET /api/v1/schedules} lists the workload's schedules
 * ({@link dev.skail.SkailSchedule}) with their next and latest ticks. The executions they start are ordinary
 * executions, listed and shown by the other routes.
 */
@RestController
public class SkailScheduleController {

    private final SkailRuntime runtime;

    private final SkailApiKey apiKey;

    public SkailScheduleController(SkailRuntime runtime, SkailApiKey apiKey) {
        this.runtime = runtime;
        this.apiKey = apiKey;
    }

    @GetMapping(path = "/api/v1/schedules", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> schedules(HttpServletRequest request) {
        this.apiKey.check(request);
        SchedulePage page = new SchedulePage(this.runtime.settings().workload(), this.runtime.settings().version(),
                this.runtime.schedules());
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(this.runtime.json().write(page));
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

    @ExceptionHandler(SkailApiKey.Unauthorized.class)
    ResponseEntity<ProblemDetail> unauthorized(SkailApiKey.Unauthorized ex) {
        return SkailApiController.unauthorizedProblem();
    }

    /**
     * The schedules of the workload.
     *
     * @param workload the workload this runtime serves
     * @param version its version
     * @param items the schedules, by function name
     */
    public record SchedulePage(String workload, String version, List<SkailScheduleInfo> items) {
    }
}
