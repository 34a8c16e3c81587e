package dev.skail.runtime;

import java.io.ObjectStreamClass;
import java.io.ObjectStreamField;
import java.io.Serializable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * The allow-list of the {@link ExceptionCodec}: which classes a recorded exception's serialized form may hold when it
 * is read back (the trusted packages, the refused classes, the fixed value types, the application's packages and
 * the registered classes), and, at start-up, why an exception type a command declares cannot be rebuilt with its
 * fields ({@link #whyNotRebuildable}).
 */
final class ExceptionAllowList {

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

    /**
     * The allow-list of the trusted packages, of the application's and of the registered classes.
     * @param applicationPackages the application's package prefixes (such as {@code com.acme.banco}); a prefix
     * admits every class in its package and sub-packages
     * @param registered the further classes to admit wherever they are
     */
    ExceptionAllowList(List<String> applicationPackages, Predicate<Class<?>> registered) {
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

    // ---------------------------------------------------------------- start-up check

    /**
     * Why an exception type cannot be rebuilt with its fields, or {@code null} when it can; see
     * {@link ExceptionCodec#whyNotRebuildable}.
     * @param type the exception type
     * @return the reason, or {@code null}
     */
    @Nullable String whyNotRebuildable(Class<? extends Throwable> type) {
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

    /**
     * Whether a class of a serialized exception is admitted when it is read back.
     * @param type the class (an array class stands for its component type)
     * @param admittedThrowables the {@link Throwable} classes admitted earlier in the same stream, whose
     * {@link Throwable} superclasses are admitted too
     * @return whether it is admitted
     */
    boolean admits(Class<?> type, Set<Class<?>> admittedThrowables) {
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
}
