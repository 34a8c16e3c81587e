package dev.skail.platform.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Callable;

import dev.skail.platform.StoreStatementException;
import dev.skail.platform.StoreUnavailableException;
import io.github.resilience4j.core.IntervalFunction;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Retries store operations that failed for a transport reason (connection refused, broken, pool timeout) with
 * exponential backoff (S11). Such a failure is never counted as an attempt of a step or function: if the retries
 * are spent, the delivery is abandoned and the execution is picked up again when its lease expires.
 */
public final class StoreRetry {

    private static final Log logger = LogFactory.getLog(StoreRetry.class);

    private final SqlDialect dialect;

    private final int maxAttempts;

    private final IntervalFunction backoff;

    public StoreRetry(SqlDialect dialect, int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
        this.dialect = dialect;
        this.maxAttempts = Math.max(1, maxAttempts);
        this.backoff = IntervalFunction.ofExponentialBackoff(initialBackoff, 2.0, maxBackoff);
    }

    /** Runs the operation, retrying transport failures. */
    public <T> T run(String what, Callable<T> operation) {
        for (int attempt = 1;; attempt++) {
            try {
                return operation.call();
            }
            catch (SQLException ex) {
                if (this.dialect.isStatementError(ex)) {
                    throw new StoreStatementException("skail store refused to " + what + ": " + ex.getMessage(), ex);
                }
                if (attempt >= this.maxAttempts) {
                    throw new StoreUnavailableException("skail store could not " + what + ": " + ex.getMessage(), ex);
                }
                long wait = this.backoff.apply(attempt);
                logger.warn("skail store could not " + what + " (attempt " + attempt + "): " + ex.getMessage()
                        + "; retrying in " + wait + " ms");
                sleep(wait);
            }
            catch (RuntimeException ex) {
                throw ex;
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while waiting to retry", ex);
        }
    }
}
