package dev.skail.benchmarks;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a scenario JVM reports: one line per scenario, {@code RESULT <scenario> key=value ...}, which the harness reads
 * from the JVM's output ({@link #parse(String)}) to build the tables.
 */
final class Results {

    static final String PREFIX = "RESULT ";

    private Results() {
    }

    /** Prints one result line; values are numbers or words without spaces. */
    static void print(String scenario, Map<String, ?> figures) {
        StringBuilder line = new StringBuilder(PREFIX).append(scenario);
        figures.forEach((key, value) -> line.append(' ').append(key).append('=').append(format(value)));
        System.out.println(line);
        System.out.flush();
    }

    /** Prints a progress note ({@code # ...}), shown as the run goes. */
    static void note(String format, Object... args) {
        System.out.println("# " + String.format(Locale.ROOT, format, args));
        System.out.flush();
    }

    /** The figures of a result line as {@code scenario.key -> value}, or an empty map for any other line. */
    static Map<String, String> parse(String line) {
        Map<String, String> figures = new LinkedHashMap<>();
        if (!line.startsWith(PREFIX)) {
            return figures;
        }
        String[] parts = line.substring(PREFIX.length()).trim().split(" +");
        for (int i = 1; i < parts.length; i++) {
            int equals = parts[i].indexOf('=');
            if (equals > 0) {
                figures.put(parts[0] + "." + parts[i].substring(0, equals), parts[i].substring(equals + 1));
            }
        }
        return figures;
    }

    private static String format(Object value) {
        if (value instanceof Double d) {
            return String.format(Locale.ROOT, "%.4f", d);
        }
        return String.valueOf(value).replace(' ', '_');
    }
}
