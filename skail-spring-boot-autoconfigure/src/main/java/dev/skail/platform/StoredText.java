package dev.skail.platform;

/**
 * Text as the stores keep it: UTF-8 (PostgreSQL's columns, the embedded store's rows and log, H2's large objects),
 * which has no form for half a UTF-16 surrogate pair (a string cut in the middle of an emoji). Such a char would be
 * kept as {@code ?}: JSON holds it as an escape, and other text with one is refused where it comes in (tags, event
 * names and keys).
 */
public final class StoredText {

    private StoredText() {
    }

    /**
     * The index of the first surrogate in {@code text} that is not half of a pair, or -1. Such text has no UTF-8 form:
     * a store would keep another text than the one given.
     */
    public static int loneSurrogate(CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            }
            else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The JSON text with each surrogate that is not half of a pair written as a JSON escape (a backslash, {@code u}
     * and four hex digits). Such a char (a string cut in the middle of an emoji, or such an escape read from a request)
     * has no UTF-8 form, and a store writes the text as UTF-8: it would come back as {@code ?}, and a replay would see
     * another value. Escaped, it reads back as itself. In JSON, a surrogate can only be inside a string.
     */
    public static String escapeLoneSurrogates(String json) {
        int at = loneSurrogate(json);
        if (at < 0) {
            return json;
        }
        int length = json.length();
        StringBuilder escaped = new StringBuilder(length + 16).append(json, 0, at);
        while (at < length) {
            char c = json.charAt(at);
            if (Character.isHighSurrogate(c) && at + 1 < length && Character.isLowSurrogate(json.charAt(at + 1))) {
                escaped.append(c).append(json.charAt(at + 1));
                at += 2;
                continue;
            }
            if (Character.isSurrogate(c)) {
                escaped.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
            }
            else {
                escaped.append(c);
            }
            at++;
        }
        return escaped.toString();
    }
}
