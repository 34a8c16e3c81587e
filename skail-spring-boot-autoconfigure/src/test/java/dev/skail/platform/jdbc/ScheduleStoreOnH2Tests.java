package dev.skail.platform.jdbc;

import java.util.UUID;

/** {@link ScheduleStoreTests} on H2, each test on an in-memory database of its own. */
class ScheduleStoreOnH2Tests extends ScheduleStoreTests {

    private final String url = "jdbc:h2:mem:schedules-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }

    @Override
    String url() {
        return this.url;
    }
}
