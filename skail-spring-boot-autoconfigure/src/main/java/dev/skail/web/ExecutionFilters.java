package dev.skail.web;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.skail.ExecutionStatus;
import dev.skail.SkailInvalidRequestException;
import dev.skail.SkailQuery;
import dev.skail.runtime.Tags;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * The query parameters that filter executions on the executions routes ({@code function}, {@code status},
 * {@code createdFrom}, {@code createdTo}, {@code updatedFrom}, {@code updatedTo}, {@code tag}, {@code id}, and
 * {@code page} and {@code size} where a page is answered), read into a {@link SkailQuery}. A bad value is a
 * {@link SkailInvalidRequestException} that names its parameter; a blank one counts as not given.
 */
final class ExecutionFilters {

    /** The deepest page the list answers. */
    static final int MAX_PAGE = 1_000_000;

    private ExecutionFilters() {
    }

    /** The filters of the request, and its page when {@code paged}. */
    static SkailQuery query(HttpServletRequest request, boolean paged) {
        SkailQuery query = SkailQuery.all()
            .withFunction(single(request, "function"))
            .withStatuses(statuses(request))
            .withCreatedFrom(instant(request, "createdFrom"))
            .withCreatedTo(instant(request, "createdTo"))
            .withUpdatedFrom(instant(request, "updatedFrom"))
            .withUpdatedTo(instant(request, "updatedTo"))
            .withIdContaining(single(request, "id"));
        for (String tag : values(request, "tag")) {
            int colon = tag.indexOf(':');
            if (colon < 0) {
                throw invalid("tag", "'" + tag + "' is not key:value (e.g. tag=pedido:8d7e4a36)");
            }
            String key = tag.substring(0, colon).strip();
            String value = tag.substring(colon + 1);
            String why = Tags.whyNotKey(key);
            if (why == null) {
                why = Tags.whyNotValue(value);
            }
            if (why != null) {
                throw invalid("tag", "'" + tag + "': " + why);
            }
            query = query.withTag(key, value);
        }
        if (paged) {
            query = query.withPage(whole(request, "page", 0, MAX_PAGE, 0))
                .withSize(whole(request, "size", 1, SkailQuery.MAX_SIZE, SkailQuery.DEFAULT_SIZE));
        }
        return query;
    }

    /** The count the operator confirmed, in the required {@code expected} parameter. */
    static long expected(HttpServletRequest request) {
        String text = single(request, "expected");
        if (text == null) {
            throw invalid("expected", "it is required: the number of executions the operator confirmed acting on "
                    + "(GET /api/v1/executions/counts tells it)");
        }
        try {
            long expected = Long.parseLong(text.strip());
            if (expected >= 0) {
                return expected;
            }
        }
        catch (NumberFormatException ex) {
            // answered below
        }
        throw invalid("expected", "'" + text + "' is not a count (a whole number, 0 or more)");
    }

    private static Set<ExecutionStatus> statuses(HttpServletRequest request) {
        Set<ExecutionStatus> statuses = EnumSet.noneOf(ExecutionStatus.class);
        for (String value : values(request, "status")) {
            for (String name : value.split(",")) {
                if (name.isBlank()) {
                    continue;
                }
                try {
                    statuses.add(ExecutionStatus.valueOf(name.strip().toUpperCase(Locale.ROOT)));
                }
                catch (IllegalArgumentException ex) {
                    throw invalid("status", "Unknown status '" + name.strip() + "': use one or several, separated by "
                            + "commas, of " + Arrays.toString(ExecutionStatus.values()));
                }
            }
        }
        return statuses;
    }

    private static @Nullable Instant instant(HttpServletRequest request, String name) {
        String text = single(request, name);
        if (text == null) {
            return null;
        }
        String trimmed = text.strip();
        for (String candidate : List.of(trimmed, trimmed.replace(' ', '+'))) {
            try {
                return Instant.parse(candidate);
            }
            catch (DateTimeParseException ex) {
                // an offset date-time, perhaps; its '+' may have come unencoded, as a space
            }
            try {
                return OffsetDateTime.parse(candidate).toInstant();
            }
            catch (DateTimeParseException ex) {
                // answered below
            }
        }
        throw invalid(name, "'" + text + "' is not an ISO-8601 instant or offset date-time (e.g. "
                + "2025-03-01T10:00:00Z or 2025-03-01T07:00:00-03:00; encode '+' as %2B)");
    }

    private static int whole(HttpServletRequest request, String name, int min, int max, int defaultValue) {
        String text = single(request, name);
        if (text == null) {
            return defaultValue;
        }
        try {
            int value = Integer.parseInt(text.strip());
            if (value >= min && value <= max) {
                return value;
            }
        }
        catch (NumberFormatException ex) {
            // answered below
        }
        throw invalid(name, "'" + text + "' is not a whole number from " + min + " to " + max + " (page must be from "
                + "0 to " + MAX_PAGE + " and size from 1 to " + SkailQuery.MAX_SIZE + ")");
    }

    /** The parameter's one value, or {@code null} when it is absent or blank. */
    private static @Nullable String single(HttpServletRequest request, String name) {
        List<String> values = values(request, name);
        if (values.size() > 1) {
            throw invalid(name, "it is given " + values.size() + " times; give it once");
        }
        return values.isEmpty() ? null : values.get(0);
    }

    /** The parameter's values that are not blank. */
    private static List<String> values(HttpServletRequest request, String name) {
        String[] given = request.getParameterValues(name);
        List<String> values = new ArrayList<>();
        if (given != null) {
            for (String value : given) {
                if (value != null && !value.isBlank()) {
                    values.add(value);
                }
            }
        }
        return values;
    }

    private static SkailInvalidRequestException invalid(String parameter, String why) {
        return new SkailInvalidRequestException("Invalid parameter '" + parameter + "': " + why);
    }
}
