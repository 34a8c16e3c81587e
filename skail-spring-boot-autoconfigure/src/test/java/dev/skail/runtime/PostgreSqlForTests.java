package dev.skail.runtime;

/** The PostgreSQL of the tests: {@code bin/test-postgres} starts it, the build passes its URL. */
public final class PostgreSqlForTests {

    static final String PROPERTY = "skail.test.postgres-url";

    private PostgreSqlForTests() {
    }

    /** The JDBC URL of the tests' PostgreSQL; fails naming how to get one when there is none. */
    public static String url() {
        String url = System.getProperty(PROPERTY, System.getenv("SKAIL_TEST_POSTGRES_URL"));
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("No PostgreSQL for the tests: run them with ./bin/test, which starts one "
                    + "(bin/test-postgres), or pass -D" + PROPERTY + "=jdbc:postgresql://...");
        }
        return url;
    }
}
