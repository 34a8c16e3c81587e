package dev.skail.runtime;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.InvalidObjectException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.util.HashSet;
import java.util.Set;

import dev.skail.runtime.ExceptionCodec.CharsetName;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The Java-serialization streams of the {@link ExceptionCodec}: writing an exception (a {@link Charset} as its name,
 * failing beyond {@link #MAX_BYTES}), reading it back (classes loaded without being initialized, no proxies, a
 * {@link Charset} from its name) and the {@link ObjectInputFilter} that reading goes through ({@link Admission}: the
 * limits, the process-wide filter and the {@link ExceptionAllowList}).
 */
final class ExceptionStreams {

    /** The most bytes an exception's serialized form may have (larger ones are recorded without it). */
    static final int MAX_BYTES = 1024 * 1024;

    /** The deepest nesting of objects a serialized exception may have. */
    static final int MAX_DEPTH = 200;

    /** The most object references a serialized exception may have. */
    static final int MAX_REFERENCES = 100_000;

    private ExceptionStreams() {
    }

    /**
     * Serializes an exception, writing a {@link Charset} as its name.
     * @param exception the exception
     * @return its serialized form
     * @throws IOException if it cannot be serialized
     * @throws RuntimeException if it cannot be serialized, or its serialized form is beyond {@link #MAX_BYTES}
     */
    static byte[] write(Throwable exception) throws IOException {
        BoundedOutputStream bytes = new BoundedOutputStream(MAX_BYTES);
        try (ObjectOutputStream out = new ReplacingObjectOutputStream(bytes)) {
            out.writeObject(exception);
        }
        return bytes.toByteArray();
    }

    /**
     * Reads a serialized object back through a filter.
     * @param bytes the serialized form
     * @param classLoader the class loader to load its classes with
     * @param filter the filter every class of the stream goes through
     * @return the object
     * @throws IOException if it cannot be read, or the filter refuses it
     * @throws ClassNotFoundException if one of its classes is gone
     */
    static @Nullable Object read(byte[] bytes, @Nullable ClassLoader classLoader, ObjectInputFilter filter)
            throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = new FilteredObjectInputStream(new ByteArrayInputStream(bytes), classLoader,
                filter)) {
            return in.readObject();
        }
    }

    /** The filter of one stream: the limits, the process-wide filter and the allow-list. */
    static final class Admission implements ObjectInputFilter {

        private final ExceptionAllowList allowList;

        private final Set<Class<?>> admittedThrowables = new HashSet<>();

        private @Nullable String refused;

        Admission(ExceptionAllowList allowList) {
            this.allowList = allowList;
        }

        /**
         * Why the first class or limit of the stream was refused.
         * @return the reason, or {@code null} when nothing was refused
         */
        @Nullable String refused() {
            return this.refused;
        }

        @Override
        public Status checkInput(FilterInfo info) {
            if (info.depth() > MAX_DEPTH || info.references() > MAX_REFERENCES || info.streamBytes() > MAX_BYTES
                    || info.arrayLength() > MAX_BYTES) {
                return refuse("the serialized form is beyond the limits (depth " + info.depth() + ", references "
                        + info.references() + ", bytes " + info.streamBytes() + ", array length "
                        + info.arrayLength() + ")");
            }
            ObjectInputFilter global = ObjectInputFilter.Config.getSerialFilter();
            if (global != null && global != this && global.checkInput(info) == Status.REJECTED) {
                return refuse("the process-wide serialization filter refuses "
                        + ((info.serialClass() != null) ? info.serialClass().getName() : "the stream"));
            }
            Class<?> type = info.serialClass();
            if (type == null) {
                return Status.UNDECIDED; // a limit check only, or a class that is gone (it fails to resolve)
            }
            if (!this.allowList.admits(type, this.admittedThrowables)) {
                return refuse("the allow-list refuses " + type.getName());
            }
            if (Throwable.class.isAssignableFrom(type)) {
                this.admittedThrowables.add(type);
            }
            return Status.ALLOWED;
        }

        private Status refuse(String why) {
            if (this.refused == null) {
                this.refused = why;
            }
            return Status.REJECTED;
        }
    }

    /** Writes a {@link Charset} (which is not Serializable) as its name. */
    private static final class ReplacingObjectOutputStream extends ObjectOutputStream {

        ReplacingObjectOutputStream(OutputStream out) throws IOException {
            super(out);
            enableReplaceObject(true);
        }

        @Override
        protected Object replaceObject(Object obj) {
            return (obj instanceof Charset charset) ? new CharsetName(charset.name()) : obj;
        }
    }

    /**
     * Loads the classes of the stream with the given class loader, without initializing them, and reads a
     * {@link Charset} back from its name.
     */
    private static final class FilteredObjectInputStream extends ObjectInputStream {

        private final @Nullable ClassLoader classLoader;

        FilteredObjectInputStream(InputStream in, @Nullable ClassLoader classLoader, ObjectInputFilter filter)
                throws IOException {
            super(in);
            this.classLoader = classLoader;
            setObjectInputFilter(filter);
            enableResolveObject(true);
        }

        @Override
        protected Object resolveObject(Object obj) throws IOException {
            if (obj instanceof CharsetName name) {
                try {
                    return Charset.forName(name.name());
                }
                catch (IllegalArgumentException ex) {
                    throw new InvalidObjectException("unknown charset " + name.name());
                }
            }
            return obj;
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass descriptor) throws IOException, ClassNotFoundException {
            try {
                return Class.forName(descriptor.getName(), false, this.classLoader);
            }
            catch (ClassNotFoundException ex) {
                Class<?> primitive = ClassUtils.resolvePrimitiveClassName(descriptor.getName());
                if (primitive != null) {
                    return primitive;
                }
                throw ex;
            }
        }

        @Override
        protected Class<?> resolveProxyClass(String[] interfaces) throws IOException, ClassNotFoundException {
            throw new InvalidClassException("proxies are not rebuilt");
        }
    }

    /** Collects bytes up to a limit, failing beyond it. */
    private static final class BoundedOutputStream extends ByteArrayOutputStream {

        private final int limit;

        BoundedOutputStream(int limit) {
            super(1024);
            this.limit = limit;
        }

        @Override
        public synchronized void write(int b) {
            check(1);
            super.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            check(len);
            super.write(b, off, len);
        }

        private void check(int more) {
            if (this.count + more > this.limit) {
                throw new SizeLimitExceeded("the serialized form is beyond " + this.limit + " bytes");
            }
        }
    }

    /** Thrown when an exception's serialized form is too large to record. */
    private static final class SizeLimitExceeded extends RuntimeException {

        private static final long serialVersionUID = 1L;

        SizeLimitExceeded(String message) {
            super(message);
        }
    }
}
