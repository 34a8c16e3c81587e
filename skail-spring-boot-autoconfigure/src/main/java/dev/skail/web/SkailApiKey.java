package dev.skail.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * The check of {@code skail.http.api-key}: the key comes in the {@value #HEADER} header, or as the password of HTTP
 * Basic authentication (so that a browser can open the Monitor). Compared in constant time.
 */
public final class SkailApiKey {

    /** Header that carries the API key. */
    public static final String HEADER = "X-Skail-Api-Key";

    /** Header that marks a request as made by a skail client (the Monitor sends it), not by a cross-site form. */
    public static final String REQUEST_HEADER = "X-Skail-Request";

    private final byte @Nullable [] key;

    public SkailApiKey(@Nullable String key) {
        this.key = (key != null && !key.isBlank()) ? key.getBytes(StandardCharsets.UTF_8) : null;
    }

    /** Whether a key is demanded. */
    public boolean isSet() {
        return this.key != null;
    }

    /** Throws {@link Unauthorized} when a key is demanded and the request does not carry it. */
    public void check(HttpServletRequest request) {
        if (this.key == null) {
            return;
        }
        String given = request.getHeader(HEADER);
        if (given == null) {
            given = basicPassword(request.getHeader("Authorization"));
        }
        byte[] candidate = (given != null) ? given.getBytes(StandardCharsets.UTF_8) : new byte[0];
        if (!MessageDigest.isEqual(this.key, candidate)) {
            throw new Unauthorized();
        }
    }

    private static @Nullable String basicPassword(@Nullable String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        try {
            String decoded = new String(Base64.getDecoder().decode(authorization.substring(6).trim()),
                    StandardCharsets.UTF_8);
            int colon = decoded.indexOf(':');
            return (colon >= 0) ? decoded.substring(colon + 1) : null;
        }
        catch (IllegalArgumentException ex) {
            return null;
        }
    }

    /** The request does not carry the API key. */
    public static final class Unauthorized extends RuntimeException {

        private static final long serialVersionUID = 1L;

        Unauthorized() {
            super("missing or wrong API key");
        }
    }
}
