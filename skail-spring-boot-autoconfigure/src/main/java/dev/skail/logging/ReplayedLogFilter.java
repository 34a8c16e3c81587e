package dev.skail.logging;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import dev.skail.SkailContext;
import dev.skail.runtime.CurrentExecution;
import org.slf4j.Marker;

/**
 * A Logback filter that drops the log lines function code writes while the function is being replayed (its steps
 * come from the history): the line was written on the run that recorded them. Commands and the runtime's own
 * loggers are never dropped.
 */
public class ReplayedLogFilter extends TurboFilter {

    private static final List<String> RUNTIME_LOGGERS = List.of("dev.skail.runtime", "dev.skail.platform",
            "dev.skail.web", "dev.skail.actuate", "dev.skail.analyzer", "dev.skail.http", "dev.skail.autoconfigure");

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
            Throwable t) {
        SkailContext context = CurrentExecution.context();
        if (context == null || !context.isReplaying() || isRuntime(logger.getName())) {
            return FilterReply.NEUTRAL;
        }
        return FilterReply.DENY;
    }

    private static boolean isRuntime(String name) {
        for (String prefix : RUNTIME_LOGGERS) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
