package dev.skail.runtime;

/** The PostgreSQL of the tests: {@code bin/test-postgres} starts it, the build passes its URL. */
final class PostgreSqlForTests {

    static final String PROPERTY = "skail.test.postgres-url";

    private PostgreSqlForTests() {
    }

    static String url() {
        String url = System.getProperty(PROPERTY, System.getenv("SKAIL_TEST_POSTGRES_URL"));
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("No PostgreSQL for the tests: run them with ./bin/test, which starts one "
                    + "(bin/test-postgres), or pass -D" + PROPERTY + "=jdbc:postgresql://...");
        }
        return url;
    }
}
