package dev.skail.runtime;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Constructor;

import dev.skail.SkailError;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Turns exceptions into recorded {@link SkailError}s and back. A recorded exception is rebuilt as its own class
 * with its own message, so the function's {@code catch} sees on replay what it saw on the first run. Only
 * {@link Throwable} subclasses are ever instantiated; a class that is gone or has no usable constructor comes
 * back as a {@link SkailRecordedException} naming it.
 */
public final class RecordedFailure {

    private RecordedFailure() {
    }

    public static SkailError of(Throwable ex) {
        StringWriter stack = new StringWriter();
        ex.printStackTrace(new PrintWriter(stack));
        return new SkailError(ex.getClass().getName(), ex.getMessage(), stack.toString());
    }

    public static Throwable rebuild(SkailError error, @Nullable ClassLoader classLoader) {
        Throwable rebuilt = instantiate(error, classLoader);
        if (rebuilt == null) {
            rebuilt = new SkailRecordedException(error);
        }
        return rebuilt;
    }

    private static @Nullable Throwable instantiate(SkailError error, @Nullable ClassLoader classLoader) {
        try {
            Class<?> type = ClassUtils.forName(error.type(), classLoader);
            if (!Throwable.class.isAssignableFrom(type)) {
                return null;
            }
            try {
                Constructor<?> withMessage = type.getDeclaredConstructor(String.class);
                withMessage.setAccessible(true);
                return (Throwable) withMessage.newInstance(error.message());
            }
            catch (NoSuchMethodException ex) {
                // fall through
            }
            try {
                Constructor<?> withCause = type.getDeclaredConstructor(String.class, Throwable.class);
                withCause.setAccessible(true);
                return (Throwable) withCause.newInstance(error.message(), null);
            }
            catch (NoSuchMethodException ex) {
                // fall through
            }
            if (error.message() == null) {
                Constructor<?> noArgs = type.getDeclaredConstructor();
                noArgs.setAccessible(true);
                return (Throwable) noArgs.newInstance();
            }
            return null;
        }
        catch (ReflectiveOperationException | LinkageError | RuntimeException ex) {
            return null;
        }
    }
}
