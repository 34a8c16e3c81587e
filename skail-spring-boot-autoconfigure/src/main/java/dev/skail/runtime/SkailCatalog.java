package dev.skail.runtime;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The functions this runtime serves, by name, as discovered among the application's beans. */
public final class SkailCatalog {

    private final Map<String, FunctionDefinition> functions;

    private final Map<String, ScheduleDefinition> schedules;

    SkailCatalog(Map<String, FunctionDefinition> functions) {
        this(functions, Map.of());
    }

    SkailCatalog(Map<String, FunctionDefinition> functions, Map<String, ScheduleDefinition> schedules) {
        this.functions = Collections.unmodifiableMap(new TreeMap<>(functions));
        this.schedules = Collections.unmodifiableMap(new TreeMap<>(schedules));
    }

    Optional<FunctionDefinition> function(String name) {
        return Optional.ofNullable(this.functions.get(name));
    }

    Collection<FunctionDefinition> functions() {
        return this.functions.values();
    }

    /** The schedules declared with {@code @SkailSchedule}, disabled ones included, by function name. */
    Collection<ScheduleDefinition> schedules() {
        return this.schedules.values();
    }
}
