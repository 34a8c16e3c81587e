package dev.skail.runtime;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The functions this runtime serves, by name, as discovered among the application's beans. */
public final class SkailCatalog {

    private final Map<String, FunctionDefinition> functions;

    SkailCatalog(Map<String, FunctionDefinition> functions) {
        this.functions = Collections.unmodifiableMap(new TreeMap<>(functions));
    }

    Optional<FunctionDefinition> function(String name) {
        return Optional.ofNullable(this.functions.get(name));
    }

    Collection<FunctionDefinition> functions() {
        return this.functions.values();
    }
}
