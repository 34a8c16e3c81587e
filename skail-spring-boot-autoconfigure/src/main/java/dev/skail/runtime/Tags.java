package dev.skail.runtime;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

import dev.skail.SkailTag;
import dev.skail.platform.StoredText;
import dev.skail.platform.Tag;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ConcurrentReferenceHashMap;

/**
 * The rules of tags (business keys of executions): what a key and a value may be, how a parameter's argument becomes
 * a value, and which parameters of a function are tagged with {@link SkailTag}. The limits match the columns of
 * {@code skail_tag}.
 */
public final class Tags {

    /** The longest key. */
    public static final int MAX_KEY_LENGTH = 64;

    /** The longest value. */
    public static final int MAX_VALUE_LENGTH = 200;

    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_KEY_LENGTH + "}");

    private static final Set<Class<?>> SIMPLE = Set.of(String.class, UUID.class, Boolean.class, Character.class,
            Byte.class, Short.class, Integer.class, Long.class, Float.class, Double.class, BigInteger.class,
            BigDecimal.class);

    // weak keys: a restarted application's classes (devtools) are not kept reachable
    private static final Map<Method, List<Declared>> declared = new ConcurrentReferenceHashMap<>();

    private Tags() {
    }

    /**
     * Why this is not a valid key, or {@code null} when it is.
     * @param key the key
     * @return the reason
     */
    public static @Nullable String whyNotKey(@Nullable String key) {
        if (key == null || !KEY.matcher(key).matches()) {
            return "a tag key is 1 to " + MAX_KEY_LENGTH + " letters, digits, '.', '_' or '-' (got "
                    + ((key == null) ? "null" : "'" + key + "'") + ")";
        }
        return null;
    }

    /**
     * Why this is not a valid value, or {@code null} when it is.
     * @param value the value
     * @return the reason
     */
    public static @Nullable String whyNotValue(@Nullable String value) {
        if (value == null || value.isBlank()) {
            return "a tag value must not be blank";
        }
        if (value.length() > MAX_VALUE_LENGTH) {
            return "a tag value has at most " + MAX_VALUE_LENGTH + " characters (got " + value.length() + ")";
        }
        int lone = StoredText.loneSurrogate(value);
        if (lone >= 0) {
            return "a tag value is Unicode text, without half a surrogate pair (one at index " + lone
                    + ": a string cut in the middle of an emoji?)";
        }
        return null;
    }


    /**
     * Checks a key and a value.
     * @throws IllegalArgumentException naming what is wrong
     */
    public static void require(String key, String value) {
        String why = whyNotKey(key);
        if (why == null) {
            why = whyNotValue(value);
        }
        if (why != null) {
            throw new IllegalArgumentException("Invalid tag " + key + "=" + value + ": " + why);
        }
    }

    /** Whether a parameter of this type can be a tag. */
    static boolean isSimple(Class<?> type) {
        return type.isPrimitive() && type != void.class || SIMPLE.contains(type) || type.isEnum();
    }

    /**
     * A value's text as a tag: {@code toString()}, an enum's {@code name()}, a decimal's plain digits without
     * trailing zeros; {@code null} for {@code null}.
     * @throws IllegalArgumentException when the value is not of a simple type
     */
    static @Nullable String text(@Nullable Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Enum<?> constant) {
            return constant.name();
        }
        if (value instanceof BigDecimal decimal) {
            return plain(decimal);
        }
        if ((value instanceof Double || value instanceof Float) && Double.isFinite(((Number) value).doubleValue())) {
            return plain(new BigDecimal(value.toString()));
        }
        if (!isSimple(value.getClass())) {
            throw new IllegalArgumentException("A tag value is a String, a UUID, a number, a boolean, a char or an "
                    + "enum, not a " + value.getClass().getName() + ": pass the text to tag it by");
        }
        return value.toString();
    }

    private static String plain(BigDecimal decimal) {
        return (decimal.signum() == 0) ? "0" : decimal.stripTrailingZeros().toPlainString();
    }

    /** The parameters of a function tagged with {@link SkailTag}. */
    static List<Declared> declared(Method method) {
        return declared.computeIfAbsent(method, (key) -> {
            List<Declared> tags = new ArrayList<>();
            Parameter[] parameters = key.getParameters();
            for (int i = 0; i < parameters.length; i++) {
                SkailTag tag = parameters[i].getAnnotation(SkailTag.class);
                if (tag != null) {
                    tags.add(new Declared(i, tag.value(), parameters[i].getType()));
                }
            }
            return List.copyOf(tags);
        });
    }

    /**
     * The tags a function's arguments give its execution, in parameter order, without repeats.
     * @param definition the function
     * @param arguments its arguments, decoded
     * @throws dev.skail.SkailInvalidRequestException when an argument's text is too long to be a tag, or holds half a
     * surrogate pair
     */
    static List<Tag> of(FunctionDefinition definition, @Nullable Object[] arguments) {
        List<Declared> parameters = declared(definition.step().method());
        if (parameters.isEmpty()) {
            return List.of();
        }
        List<Tag> tags = new ArrayList<>();
        for (Declared parameter : parameters) {
            Object argument = (parameter.index() < arguments.length) ? arguments[parameter.index()] : null;
            String text = text(argument);
            if (text == null || text.isBlank()) {
                continue;
            }
            if (text.length() > MAX_VALUE_LENGTH) {
                throw new dev.skail.SkailInvalidRequestException("Argument " + parameter.index() + " of function '"
                        + definition.name() + "' is the tag '" + parameter.key() + "', whose value has at most "
                        + MAX_VALUE_LENGTH + " characters (got " + text.length() + ")");
            }
            int lone = StoredText.loneSurrogate(text);
            if (lone >= 0) {
                throw new dev.skail.SkailInvalidRequestException("Argument " + parameter.index() + " of function '"
                        + definition.name() + "' is the tag '" + parameter.key() + "', whose value is Unicode text, "
                        + "without half a surrogate pair (one at index " + lone + ")");
            }
            Tag tag = new Tag(parameter.key(), text);
            if (!tags.contains(tag)) {
                tags.add(tag);
            }
        }
        return List.copyOf(tags);
    }

    /**
     * A parameter tagged with {@link SkailTag}.
     *
     * @param index its position
     * @param key the tag's key
     * @param type its declared type
     */
    record Declared(int index, String key, Class<?> type) {
    }
}
