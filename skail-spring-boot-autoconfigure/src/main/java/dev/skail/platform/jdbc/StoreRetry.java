package dev.skail.platform.jdbc;

import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

import dev.skail.platform.StoreDeadline;
import dev.skail.platform.StoreStatementException;
import dev.skail.platform.StoreUnavailableException;
import io.github.resilience4j.core.IntervalFunction;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Retries store operations that failed for a transport reason (connection refused, broken, pool timeout) with
 * exponential backoff (S11). Such a failure is never counted as an attempt of a step or function: if the retries
 * are spent, the delivery is abandoned and the execution is picked up again when its lease expires. A thread that
 * works under a {@link StoreDeadline} (a request) does not retry past it. A store that is not ready (its schema not
 * yet created because the database could not be reached at start-up) fails every operation at once.
 */
public final class StoreRetry {

    private static final Log logger = LogFactory.getLog(StoreRetry.class);

    private final SqlDialect dialect;

    private final int maxAttempts;

    private final IntervalFunction backoff;

    private volatile Supplier<@Nullable String> notReady = () -> null;

    private volatile Runnable onDatabaseClosed = () -> {
    };

    private volatile @Nullable String diskFull;

    public StoreRetry(SqlDialect dialect, int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
        this.dialect = dialect;
        this.maxAttempts = Math.max(1, maxAttempts);
        this.backoff = IntervalFunction.ofExponentialBackoff(initialBackoff, 2.0, maxBackoff);
    }

    /** Every operation fails at once, with the reason this gives, while it gives one (the store is not ready). */
    public void gate(Supplier<@Nullable String> notReady) {
        this.notReady = notReady;
    }

    /**
     * Runs {@code action} when a failure says the database has closed its sessions (H2 closes itself after a write
     * failed, e.g. on a full disk): the pool must then drop the connections it holds.
     */
    public void onDatabaseClosed(Runnable action) {
        this.onDatabaseClosed = action;
    }

    /** Why the store's disk is full, since the last operation that failed for it and until {@link #diskFreed()}. */
    public @Nullable String diskFull() {
        return this.diskFull;
    }

    /** A write went through: the disk is no longer full. */
    public void diskFreed() {
        this.diskFull = null;
    }

    /** Runs the operation, retrying transport failures. */
    public <T> T run(String what, Callable<T> operation) {
        String notReady = this.notReady.get();
        if (notReady != null) {
            throw new StoreUnavailableException("skail store could not " + what + ": " + notReady, null);
        }
        return attempts(what, operation, this.maxAttempts);
    }

    /** Runs the operation once, without retries, even when the store is not ready (migrations, probes). */
    public <T> T once(String what, Callable<T> operation) {
        return attempts(what, operation, 1);
    }

    private <T> T attempts(String what, Callable<T> operation, int maxAttempts) {
        for (int attempt = 1;; attempt++) {
            if (StoreDeadline.remainingMillis() == 0) {
                throw new StoreUnavailableException("skail store could not " + what + " in time", null);
            }
            try {
                return operation.call();
            }
            catch (SQLException ex) {
                if (this.dialect.isStatementError(ex) && !isDatabaseClosed(ex)) {
                    throw new StoreStatementException("skail store refused to " + what + ": " + ex.getMessage(), ex);
                }
                if (isDatabaseClosed(ex)) {
                    this.onDatabaseClosed.run();
                }
                String reason = reason(ex);
                long wait = this.backoff.apply(attempt);
                long remaining = StoreDeadline.remainingMillis();
                if (attempt >= maxAttempts || (remaining >= 0 && remaining <= wait)) {
                    throw new StoreUnavailableException("skail store could not " + what + ": " + reason, ex);
                }
                logger.warn("skail store could not " + what + " (attempt " + attempt + "): " + reason
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

    /** The failure, told as an operator needs it: a full disk is named as such. */
    private String reason(SQLException ex) {
        if (isDiskFull(ex)) {
            String reason = "the store's disk is full (" + ex.getMessage() + ")";
            this.diskFull = reason;
            return reason;
        }
        String message = String.valueOf(ex.getMessage());
        Throwable cause = ex.getCause();
        if (cause != null && cause.getMessage() != null && !message.contains(cause.getMessage())) {
            // the pool's "request timed out" says little; the driver's failure under it says why
            message = message + " (" + cause.getMessage() + ")";
        }
        return message;
    }

    /** Whether the failure comes from a file system that has no space left. */
    public static boolean isDiskFull(Throwable ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            String message = String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT);
            if ((cause instanceof IOException || cause instanceof SQLException)
                    && (message.contains("no space left") || message.contains("not enough space")
                            || message.contains("disk full") || message.contains("disk quota exceeded"))) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    /**
     * Whether H2 closed the database under the session (90098 database closed, 90121 closed at shutdown, or a failed
     * file write, after which H2 closes it): the pool's other sessions of it are dead too.
     */
    boolean isDatabaseClosed(SQLException ex) {
        return this.dialect == SqlDialect.H2 && StoreExceptionOverride.isDatabaseClosed(ex);
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
