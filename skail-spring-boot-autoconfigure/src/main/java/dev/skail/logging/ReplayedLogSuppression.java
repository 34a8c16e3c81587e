package dev.skail.logging;

import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;

/** Installs the {@link ReplayedLogFilter} in Logback while the application runs. */
public class ReplayedLogSuppression implements SmartInitializingSingleton, DisposableBean {

    private final ReplayedLogFilter filter = new ReplayedLogFilter();

    @Override
    public void afterSingletonsInstantiated() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context
                && !context.getTurboFilterList().contains(this.filter)) {
            this.filter.start();
            context.addTurboFilter(this.filter);
        }
    }

    @Override
    public void destroy() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.getTurboFilterList().remove(this.filter);
        }
    }
}
