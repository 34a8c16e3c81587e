package dev.skail.platform.jdbc;

import java.util.List;

/**
 * The store's schema, as numbered migrations. A migration, once released, never changes: a new one is added.
 */
final class SchemaMigrations {

    private SchemaMigrations() {
    }

    static List<List<String>> all(SqlDialect dialect) {
        String text = dialect.textType();
        List<String> v1 = List.of("""
                CREATE TABLE skail_execution (
                    task_id VARCHAR(128) NOT NULL PRIMARY KEY,
                    workload VARCHAR(100) NOT NULL,
                    version VARCHAR(100) NOT NULL,
                    function_name VARCHAR(200) NOT NULL,
                    arguments %1$s NOT NULL,
                    status VARCHAR(16) NOT NULL,
                    result %1$s,
                    error %1$s,
                    attempt INT NOT NULL,
                    retries_used INT NOT NULL,
                    next_run_at BIGINT,
                    lease_owner VARCHAR(200),
                    lease_token VARCHAR(64),
                    lease_until BIGINT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )""".formatted(text),
                "CREATE INDEX skail_execution_due ON skail_execution (workload, version, status, next_run_at)",
                "CREATE INDEX skail_execution_created ON skail_execution (created_at)",
                """
                CREATE TABLE skail_step (
                    task_id VARCHAR(128) NOT NULL,
                    position INT NOT NULL,
                    kind VARCHAR(16) NOT NULL,
                    name VARCHAR(200) NOT NULL,
                    arguments %1$s NOT NULL,
                    status VARCHAR(16) NOT NULL,
                    result %1$s,
                    error %1$s,
                    idempotency_key VARCHAR(64) NOT NULL,
                    function_attempt INT NOT NULL,
                    started_at BIGINT NOT NULL,
                    completed_at BIGINT NOT NULL,
                    PRIMARY KEY (task_id, position)
                )""".formatted(text),
                """
                CREATE TABLE skail_attempt (
                    task_id VARCHAR(128) NOT NULL,
                    position INT NOT NULL,
                    name VARCHAR(200) NOT NULL,
                    function_attempt INT NOT NULL,
                    number INT NOT NULL,
                    started_at BIGINT NOT NULL,
                    ended_at BIGINT NOT NULL,
                    outcome VARCHAR(16) NOT NULL,
                    error %1$s,
                    decision VARCHAR(24) NOT NULL,
                    backoff_ms BIGINT,
                    PRIMARY KEY (task_id, position, function_attempt, number)
                )""".formatted(text));
        return List.of(v1);
    }
}
