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
import java.io.ObjectStreamField;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Serializable;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
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
 * are refused, as is a stream beyond {@value #MAX_BYTES} bytes, {@value #MAX_DEPTH} levels of nesting or
 * {@value #MAX_REFERENCES} references. A process-wide filter ({@code jdk.serialFilter}) is honoured as well.
 * <p>
 * What cannot be rebuilt (a class outside the allow-list, a class that is gone or changed incompatibly, a stream
 * that fails the filter, an exception that could not be serialized when it was recorded) comes back as a
 * {@link SkailRecordedException} naming the original class and message, never as an arbitrary object; why is
 * logged once.
 */
public class ExceptionCodec {

    /** The most bytes an exception's serialized form may have (larger ones are recorded without it). */
    static final int MAX_BYTES = 1024 * 1024;

    /** The deepest nesting of objects a serialized exception may have. */
    static final int MAX_DEPTH = 200;

    /** The most object references a serialized exception may have. */
    static final int MAX_REFERENCES = 100_000;

    /** The most causes recorded in {@link SkailError#cause()}. */
    static final int MAX_CAUSES = 32;

    private static final int MAX_REPORTED = 1000;

    private static final Log logger = LogFactory.getLog(ExceptionCodec.class);

    private static final List<String> TRUSTED_PACKAGES = List.of("java.", "javax.", "jakarta.",
            "org.springframework.", "dev.skail.");

    /** Throwables of trusted packages that are known to call foreign code while being read. */
    private static final Set<String> DENIED = Set.of("javax.management.BadAttributeValueExpException");

    private static final Set<String> VALUE_TYPES = Set.of(
            // java.lang, java.math, java.net
            "java.lang.Object", "java.lang.String", "java.lang.Boolean", "java.lang.Character", "java.lang.Number",
            "java.lang.Byte", "java.lang.Short", "java.lang.Integer", "java.lang.Long", "java.lang.Float",
            "java.lang.Double", "java.lang.Enum", "java.lang.StackTraceElement", "java.math.BigDecimal",
            "java.math.BigInteger", "java.net.URI",
            // java.util values
            "java.util.Locale", "java.util.UUID", "java.util.Date",
            // an interface: only the element type of arrays (LinkedCaseInsensitiveMap holds one), never an object
            "java.util.Map$Entry",
            // java.util collections (no sorted ones: reading them calls compareTo / a comparator)
            "java.util.ArrayList", "java.util.LinkedList", "java.util.HashMap", "java.util.LinkedHashMap",
            "java.util.HashSet", "java.util.LinkedHashSet", "java.util.Arrays$ArrayList", "java.util.CollSer",
            "java.util.Collections$EmptyList", "java.util.Collections$EmptyMap", "java.util.Collections$EmptySet",
            "java.util.Collections$SingletonList", "java.util.Collections$SingletonMap",
            "java.util.Collections$SingletonSet", "java.util.Collections$UnmodifiableCollection",
            "java.util.Collections$UnmodifiableList", "java.util.Collections$UnmodifiableRandomAccessList",
            "java.util.Collections$UnmodifiableSet", "java.util.Collections$UnmodifiableMap",
            // Spring's HTTP values
            "org.springframework.http.HttpHeaders", "org.springframework.http.ReadOnlyHttpHeaders",
            "org.springframework.http.DefaultHttpStatusCode", "org.springframework.http.ProblemDetail",
            "org.springframework.util.LinkedMultiValueMap", "org.springframework.util.MultiValueMapAdapter",
            "org.springframework.util.LinkedCaseInsensitiveMap", "org.springframework.util.LinkedCaseInsensitiveMap$1",
            "org.springframework.util.CollectionUtils$UnmodifiableMultiValueMap",
            // what a SkailRecordedException holds
            "dev.skail.SkailError",
            // stands for a Charset, which is not Serializable (WebClientResponseException holds one)
            "dev.skail.runtime.ExceptionCodec$CharsetName");

    private static final List<String> VALUE_TYPE_PREFIXES = List.of("java.time.", "java.util.ImmutableCollections$");

    private final List<String> applicationPackages;

    private final Predicate<Class<?>> registered;

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
        List<String> packages = new ArrayList<>();
        for (String prefix : applicationPackages) {
            String trimmed = prefix.strip();
            while (trimmed.endsWith(".")) {
                trimmed = trimmed.substring(0, trimmed.length() - 1);
            }
            if (!trimmed.isEmpty()) {
                packages.add(trimmed + ".");
            }
        }
        this.applicationPackages = List.copyOf(packages);
        this.registered = registered;
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
            BoundedOutputStream bytes = new BoundedOutputStream(MAX_BYTES);
            try (ObjectOutputStream out = new ReplacingObjectOutputStream(bytes)) {
                out.writeObject(exception);
            }
            return Base64.getEncoder().encodeToString(bytes.toByteArray());
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
        Admission admission = new Admission();
        try {
            byte[] bytes = Base64.getDecoder().decode(data);
            if (bytes.length > MAX_BYTES) {
                throw new InvalidClassException(error.type(), "serialized form beyond " + MAX_BYTES + " bytes");
            }
            Object rebuilt;
            try (ObjectInputStream in = new FilteredObjectInputStream(new ByteArrayInputStream(bytes),
                    (classLoader != null) ? classLoader : ClassUtils.getDefaultClassLoader(), admission)) {
                rebuilt = in.readObject();
            }
            if (!(rebuilt instanceof Throwable throwable) || !rebuilt.getClass().getName().equals(error.type())) {
                throw new InvalidClassException(error.type(), "the serialized form holds a "
                        + ((rebuilt != null) ? rebuilt.getClass().getName() : "null"));
            }
            return throwable;
        }
        catch (Exception | LinkageError | StackOverflowError ex) {
            String refused = admission.refused;
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
        if (DENIED.contains(type.getName())) {
            return type.getName() + " is refused: reading it back runs code of the values it holds";
        }
        if (!admitsThrowable(type)) {
            return type.getName() + " is outside the packages exceptions are rebuilt from (" + packagesText()
                    + ") and is not registered";
        }
        Set<Class<?>> seen = new HashSet<>();
        return whyNotSerializable(type, Throwable.class, seen);
    }

    private @Nullable String whyNotSerializable(Class<?> type, Class<?> stopAt, Set<Class<?>> seen) {
        for (Class<?> each = type; each != null && each != stopAt; each = each.getSuperclass()) {
            ObjectStreamClass stream = ObjectStreamClass.lookup(each);
            if (stream == null) {
                // the first superclass that is not Serializable is made through its no-argument constructor
                return hasSerializationConstructor(each, type) ? null : "superclass " + each.getName()
                        + " is not Serializable and has no no-argument constructor " + type.getSimpleName()
                        + " can call";
            }
            for (ObjectStreamField field : stream.getFields()) {
                if (field.isPrimitive()) {
                    continue;
                }
                String why = whyNotAdmitted(genericType(each, field), seen);
                if (why != null) {
                    return "field '" + field.getName() + "' of " + each.getName() + " " + why;
                }
            }
        }
        return null;
    }

    private static boolean hasSerializationConstructor(Class<?> superclass, Class<?> type) {
        try {
            int modifiers = superclass.getDeclaredConstructor().getModifiers();
            return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers) || (!Modifier.isPrivate(modifiers)
                    && superclass.getPackageName().equals(type.getPackageName()));
        }
        catch (NoSuchMethodException | LinkageError | RuntimeException ex) {
            return false;
        }
    }

    private static Type genericType(Class<?> owner, ObjectStreamField field) {
        try {
            Field declared = owner.getDeclaredField(field.getName());
            return declared.getGenericType();
        }
        catch (NoSuchFieldException | LinkageError | RuntimeException ex) {
            return field.getType();
        }
    }

    private @Nullable String whyNotAdmitted(Type type, Set<Class<?>> seen) {
        if (type instanceof ParameterizedType parameterized) {
            String why = whyNotAdmitted(parameterized.getRawType(), seen);
            for (Type argument : parameterized.getActualTypeArguments()) {
                why = (why != null) ? why : whyNotAdmitted(argument, seen);
            }
            return why;
        }
        if (type instanceof GenericArrayType array) {
            return whyNotAdmitted(array.getGenericComponentType(), seen);
        }
        if (type instanceof WildcardType wildcard) {
            for (Type bound : wildcard.getUpperBounds()) {
                String why = whyNotAdmitted(bound, seen);
                if (why != null) {
                    return why;
                }
            }
            return null;
        }
        if (!(type instanceof Class<?> declared)) {
            return null; // a type variable: its values are known only at run time
        }
        Class<?> raw = declared;
        while (raw.isArray()) {
            raw = raw.getComponentType();
        }
        if (raw.isPrimitive() || !seen.add(raw)) {
            return null;
        }
        if (raw == Object.class || raw.isInterface() || Modifier.isAbstract(raw.getModifiers())) {
            return null; // which class its values have is known only at run time
        }
        if (!Serializable.class.isAssignableFrom(raw)) {
            return "has type " + raw.getName() + ", which is not Serializable (make it Serializable, or the field "
                    + "transient)";
        }
        if (!admits(raw, Set.of())) {
            return "has type " + raw.getName() + ", which is outside the packages exceptions are rebuilt from ("
                    + packagesText() + ") and is not registered";
        }
        if (inApplication(raw) || this.registered.test(raw)) {
            String why = whyNotSerializable(raw, Object.class, seen);
            return (why != null) ? "has type " + raw.getName() + ", whose " + why : null;
        }
        return null;
    }

    // ---------------------------------------------------------------- the allow-list

    private boolean admits(Class<?> type, Set<Class<?>> admittedThrowables) {
        Class<?> component = type;
        while (component.isArray()) {
            component = component.getComponentType();
        }
        if (component.isPrimitive()) {
            return true;
        }
        if (Proxy.isProxyClass(component)) {
            return false;
        }
        if (Throwable.class.isAssignableFrom(component)) {
            if (admitsThrowable(component)) {
                return true;
            }
            for (Class<?> admitted : admittedThrowables) {
                if (!DENIED.contains(component.getName()) && component.isAssignableFrom(admitted)) {
                    return true; // a superclass of an admitted exception
                }
            }
            return false;
        }
        if (component.isEnum()) {
            return trusted(component) || inApplication(component);
        }
        if (Charset.class.isAssignableFrom(component)) {
            return true; // not Serializable: only ever what a CharsetName is read back as
        }
        String name = component.getName();
        if (VALUE_TYPES.contains(name) || startsWithAny(name, VALUE_TYPE_PREFIXES)) {
            return true;
        }
        return inApplication(component) || this.registered.test(component);
    }

    private boolean admitsThrowable(Class<?> type) {
        if (DENIED.contains(type.getName())) {
            return false;
        }
        return trusted(type) || inApplication(type) || this.registered.test(type);
    }

    private static boolean trusted(Class<?> type) {
        return startsWithAny(type.getName(), TRUSTED_PACKAGES);
    }

    private boolean inApplication(Class<?> type) {
        return startsWithAny(type.getName(), this.applicationPackages);
    }

    private static boolean startsWithAny(String name, List<String> prefixes) {
        for (String prefix : prefixes) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private String packagesText() {
        List<String> all = new ArrayList<>(TRUSTED_PACKAGES);
        all.addAll(this.applicationPackages);
        return String.join(", ", all);
    }

    private void reportOnce(String type, String kind, String why) {
        if (this.reported.size() < MAX_REPORTED && this.reported.add(type + " " + kind)) {
            logger.warn("Recorded exception " + type + " " + why);
        }
    }

    /** The filter of one stream: the limits, the process-wide filter and the allow-list. */
    private final class Admission implements ObjectInputFilter {

        private final Set<Class<?>> admittedThrowables = new HashSet<>();

        private @Nullable String refused;

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
            if (!admits(type, this.admittedThrowables)) {
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

    /** A {@link Charset} in a serialized exception, by name. */
    record CharsetName(String name) implements Serializable {
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
