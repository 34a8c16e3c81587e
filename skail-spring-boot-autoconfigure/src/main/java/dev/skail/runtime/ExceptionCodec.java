package dev.skail.runtime;

import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.PrintWriter;
import java.io.Serializable;
import java.io.StringWriter;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import dev.skail.SkailError;
import dev.skail.SkailRecordedException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Records exceptions as {@link SkailError}s and rebuilds them, so that what a function's {@code catch} sees on a
 * replay is what it saw on the first run: the same class, message, cause chain, suppressed exceptions, stack
 * trace and fields.
 * <p>
 * The exception is kept in Java serialization form ({@link SkailError#data()}, base64), which is how the JDK and
 * Spring (the {@code RestClientResponseException} family, {@code ErrorResponseException}) make exceptions
 * portable: it restores {@link Throwable}'s private state without {@code --add-opens}, and honours each class's
 * own {@code writeObject}/{@code readObject}. A {@link Charset} (not Serializable, yet held by
 * {@code WebClientResponseException}) is written as its name and read back as the charset.
 * <p>
 * Reading it back goes through an {@link ObjectInputFilter} that admits only an allow-list, consulted for every
 * class of the stream before any instance of it is made (classes are loaded without being initialized):
 * <ul>
 * <li>{@link Throwable} subclasses of the trusted packages ({@code java.}, {@code javax.}, {@code jakarta.},
 * {@code org.springframework.}, {@code dev.skail.}), of the application's packages (given to the constructor) or
 * registered (the types commands declare in {@code throws}), and the {@link Throwable} superclasses of one of
 * them admitted earlier in the same stream;</li>
 * <li>every other class of the application's packages and every registered class (the values the application's
 * own exceptions hold);</li>
 * <li>enums of the trusted and the application's packages;</li>
 * <li>a fixed set of value types: primitives, {@link String}, boxed numbers, {@code BigDecimal},
 * {@code BigInteger}, {@code java.time} values, {@link StackTraceElement}, {@code URI}, {@code Locale},
 * {@code UUID}, {@code Date}, the JDK's general-purpose collections ({@code ArrayList}, {@code LinkedList},
 * {@code HashMap}, {@code LinkedHashMap}, {@code HashSet}, {@code LinkedHashSet}, {@code Arrays.asList}, the
 * empty, singleton, unmodifiable and immutable collections of {@code Collections}, {@code List.of} and
 * {@code Map.of}) and Spring's {@code HttpHeaders}, {@code DefaultHttpStatusCode}, {@code ProblemDetail},
 * {@code LinkedMultiValueMap}, {@code MultiValueMapAdapter} and {@code LinkedCaseInsensitiveMap}, and
 * {@link SkailError} (which a {@link SkailRecordedException} holds);</li>
 * <li>arrays of any of those.</li>
 * </ul>
 * Sorted collections and priority queues (which call foreign code while being read), proxies and everything else
 * are refused, as is a stream beyond {@value ExceptionStreams#MAX_BYTES} bytes, {@value ExceptionStreams#MAX_DEPTH}
 * levels of nesting or {@value ExceptionStreams#MAX_REFERENCES} references. A process-wide filter
 * ({@code jdk.serialFilter}) is honoured as well.
 * <p>
 * What cannot be rebuilt (a class outside the allow-list, a class that is gone or changed incompatibly, a stream
 * that fails the filter, an exception that could not be serialized when it was recorded) comes back as a
 * {@link SkailRecordedException} naming the original class and message, never as an arbitrary object; why is
 * logged once.
 * <p>
 * This class owns encoding, decoding, the readable cause chain and reporting why an exception is not rebuilt; the
 * allow-list and the start-up check are {@link ExceptionAllowList}'s, the serialization streams, their filter and
 * limits {@link ExceptionStreams}'.
 */
public class ExceptionCodec {

    /** The most causes recorded in {@link SkailError#cause()}. */
    static final int MAX_CAUSES = 32;

    private static final int MAX_REPORTED = 1000;

    private static final Log logger = LogFactory.getLog(ExceptionCodec.class);

    private final ExceptionAllowList allowList;

    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    /**
     * A codec that rebuilds the exceptions of the trusted packages and of the application's.
     * @param applicationPackages the application's package prefixes (such as {@code com.acme.banco}); a prefix
     * admits every class in its package and sub-packages
     */
    public ExceptionCodec(List<String> applicationPackages) {
        this(applicationPackages, (type) -> false);
    }

    /**
     * A codec that rebuilds the exceptions of the trusted packages, of the application's and the registered ones.
     * @param applicationPackages the application's package prefixes (such as {@code com.acme.banco}); a prefix
     * admits every class in its package and sub-packages
     * @param registered the further classes to admit wherever they are, such as the exception types commands
     * declare in {@code throws} and the classes of their fields
     */
    public ExceptionCodec(List<String> applicationPackages, Predicate<Class<?>> registered) {
        this.allowList = new ExceptionAllowList(applicationPackages, registered);
    }

    // ---------------------------------------------------------------- encode

    /**
     * Records an exception. Never throws: what cannot be captured (a message or stack trace whose computation
     * fails, a field value that cannot be serialized) is left out, and the exception is then rebuilt as a
     * {@link SkailRecordedException}.
     * @param exception the exception
     * @return its record, with its serialized form when it could be serialized
     */
    public SkailError encode(Throwable exception) {
        if (exception instanceof SkailRecordedException recorded) {
            // it stands for a recorded exception that could not be rebuilt: record that one again
            return recorded.error();
        }
        String type = exception.getClass().getName();
        return new SkailError(type, message(exception), stackTrace(exception), causes(exception),
                serialize(exception));
    }

    private static @Nullable String message(Throwable exception) {
        try {
            return exception.getMessage();
        }
        catch (RuntimeException | LinkageError | StackOverflowError ex) {
            return null;
        }
    }

    private static @Nullable String stackTrace(Throwable exception) {
        try {
            StringWriter stack = new StringWriter();
            exception.printStackTrace(new PrintWriter(stack));
            return stack.toString();
        }
        catch (RuntimeException | LinkageError | StackOverflowError ex) {
            return null;
        }
    }

    private static @Nullable SkailError causes(Throwable exception) {
        List<Throwable> chain = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        seen.add(exception);
        Throwable cause = cause(exception);
        while (cause != null && seen.add(cause) && chain.size() < MAX_CAUSES) {
            chain.add(cause);
            cause = cause(cause);
        }
        SkailError recorded = null;
        for (int i = chain.size() - 1; i >= 0; i--) {
            Throwable each = chain.get(i);
            recorded = new SkailError(each.getClass().getName(), message(each), null, recorded, null);
        }
        return recorded;
    }

    private static @Nullable Throwable cause(Throwable exception) {
        try {
            return exception.getCause();
        }
        catch (RuntimeException | LinkageError | StackOverflowError ex) {
            return null;
        }
    }

    private @Nullable String serialize(Throwable exception) {
        try {
            return Base64.getEncoder().encodeToString(ExceptionStreams.write(exception));
        }
        catch (Exception | LinkageError | StackOverflowError ex) {
            reportOnce(exception.getClass().getName(), "encode:" + ex.getClass().getName(),
                    "cannot be serialized (" + ex + "); it will be thrown into the function as a "
                            + SkailRecordedException.class.getSimpleName() + " naming its class and message");
            return null;
        }
    }

    // ---------------------------------------------------------------- decode

    /**
     * Rebuilds a recorded exception: as its own class, with its message, causes, suppressed exceptions, stack
     * trace and fields when its serialized form passes the allow-list, or else as a {@link SkailRecordedException}
     * naming its class and message (with the recorded causes likewise).
     * @param error the recorded exception
     * @param classLoader the class loader to load its classes with ({@code null} for the default)
     * @return the exception
     */
    public Throwable decode(SkailError error, @Nullable ClassLoader classLoader) {
        String data = error.data();
        if (data == null) {
            reportOnce(error.type(), "decode:no-data", "was recorded without its serialized form");
            return unrebuildable(error);
        }
        ExceptionStreams.Admission admission = new ExceptionStreams.Admission(this.allowList);
        try {
            byte[] bytes = Base64.getDecoder().decode(data);
            if (bytes.length > ExceptionStreams.MAX_BYTES) {
                throw new InvalidClassException(error.type(),
                        "serialized form beyond " + ExceptionStreams.MAX_BYTES + " bytes");
            }
            Object rebuilt = ExceptionStreams.read(bytes,
                    (classLoader != null) ? classLoader : ClassUtils.getDefaultClassLoader(), admission);
            if (!(rebuilt instanceof Throwable throwable) || !rebuilt.getClass().getName().equals(error.type())) {
                throw new InvalidClassException(error.type(), "the serialized form holds a "
                        + ((rebuilt != null) ? rebuilt.getClass().getName() : "null"));
            }
            return throwable;
        }
        catch (Exception | LinkageError | StackOverflowError ex) {
            String refused = admission.refused();
            String why = (refused != null) ? refused : ex.toString();
            reportOnce(error.type(), "decode:" + ((refused != null) ? refused : ex.getClass().getName()),
                    "cannot be rebuilt (" + why + "); it is thrown into the function as a "
                            + SkailRecordedException.class.getSimpleName() + " naming its class and message");
            return unrebuildable(error);
        }
    }

    private static SkailRecordedException unrebuildable(SkailError error) {
        SkailRecordedException rebuilt = new SkailRecordedException(error);
        SkailError cause = error.cause();
        if (cause != null) {
            rebuilt.initCause(unrebuildable(cause));
        }
        return rebuilt;
    }

    // ---------------------------------------------------------------- start-up check

    /**
     * Why an exception type (one a command declares in {@code throws}) cannot be rebuilt with its fields, or
     * {@code null} when it can: its class is outside the allow-list, or one of its serialized fields has a declared
     * type whose values cannot be serialized or would be refused when read back.
     * @param type the exception type
     * @return the reason, or {@code null}
     */
    public @Nullable String whyNotRebuildable(Class<? extends Throwable> type) {
        return this.allowList.whyNotRebuildable(type);
    }

    // ---------------------------------------------------------------- reporting

    private void reportOnce(String type, String kind, String why) {
        if (this.reported.size() < MAX_REPORTED && this.reported.add(type + " " + kind)) {
            logger.warn("Recorded exception " + type + " " + why);
        }
    }

    /**
     * A {@link Charset} in a serialized exception, by name. It stays nested here, not in {@link ExceptionStreams}
     * which writes and reads it: its class name ({@code dev.skail.runtime.ExceptionCodec$CharsetName}) is part of
     * the recorded serialized forms, and the allow-list admits it by that name.
     */
    record CharsetName(String name) implements Serializable {
    }
}
