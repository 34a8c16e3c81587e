package dev.skail.platform.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import dev.skail.autoconfigure.SkailAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** A store on an H2 file is as durable as the default one: a commit is on disk before it returns. */
class H2UrlsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SkailAutoConfiguration.class))
        .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.worker.enabled=false");

    @Test
    void aFileUrlWithoutWriteDelayGetsWriteDelayZero() {
        assertThat(H2Urls.durable("jdbc:h2:file:./data/skail")).isEqualTo("jdbc:h2:file:./data/skail;WRITE_DELAY=0");
        assertThat(H2Urls.durable("jdbc:h2:./data/skail;FILE_LOCK=FS"))
            .isEqualTo("jdbc:h2:./data/skail;FILE_LOCK=FS;WRITE_DELAY=0");
        assertThat(H2Urls.durable("jdbc:h2:~/skail;")).isEqualTo("jdbc:h2:~/skail;WRITE_DELAY=0");
    }

    @Test
    void aFileUrlWithWriteDelayZeroIsKeptAsItIs() {
        assertThat(H2Urls.durable("jdbc:h2:file:/data/skail;WRITE_DELAY=0")).isEqualTo(
                "jdbc:h2:file:/data/skail;WRITE_DELAY=0");
        assertThat(H2Urls.durable("jdbc:h2:file:/data/skail;write_delay = 0;FILE_LOCK=FS"))
            .isEqualTo("jdbc:h2:file:/data/skail;write_delay = 0;FILE_LOCK=FS");
    }

    @Test
    void aFileUrlThatDelaysWritesIsRefusedNamingTheProperty() {
        assertThatIllegalArgumentException().isThrownBy(() -> H2Urls.durable("jdbc:h2:file:/data/skail;WRITE_DELAY=500"))
            .withMessageContaining("skail.store.url")
            .withMessageContaining("WRITE_DELAY=500");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> H2Urls.durable("jdbc:h2:tcp://db/skail;FILE_LOCK=FS;Write_Delay=100"))
            .withMessageContaining("skail.store.url");
    }

    @Test
    void inMemoryServerAndOtherUrlsAreLeftAlone() {
        assertThat(H2Urls.durable("jdbc:h2:mem:skail;DB_CLOSE_DELAY=-1")).isEqualTo("jdbc:h2:mem:skail;DB_CLOSE_DELAY=-1");
        assertThat(H2Urls.durable("jdbc:h2:mem:skail;WRITE_DELAY=500")).isEqualTo("jdbc:h2:mem:skail;WRITE_DELAY=500");
        assertThat(H2Urls.durable("jdbc:h2:tcp://db:9092/skail")).isEqualTo("jdbc:h2:tcp://db:9092/skail");
        assertThat(H2Urls.durable("jdbc:postgresql://db/skail")).isEqualTo("jdbc:postgresql://db/skail");
    }

    @Test
    void theApplicationsFileStoreWritesCommitsBeforeTheyReturn(@TempDir Path directory) throws Exception {
        String url = "jdbc:h2:file:" + directory.resolve("skail").toAbsolutePath();

        this.runner.withPropertyValues("skail.store.url=" + url).run((context) -> {
            assertThat(context).hasNotFailed();
            // the same embedded database, opened by the application's store
            try (Connection connection = DriverManager.getConnection(url);
                    Statement statement = connection.createStatement();
                    ResultSet rs = statement.executeQuery("SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS "
                            + "WHERE SETTING_NAME = 'WRITE_DELAY'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("0");
            }
        });
    }

    @Test
    void anApplicationWhoseFileStoreDelaysWritesDoesNotStart(@TempDir Path directory) {
        String url = "jdbc:h2:file:" + directory.resolve("skail").toAbsolutePath() + ";WRITE_DELAY=500";

        this.runner.withPropertyValues("skail.store.url=" + url).run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("skail.store.url")
                .hasMessageContaining("can leave the database file inconsistent")
                .hasMessageContaining("WRITE_DELAY=0");
        });
    }

    /**
     * The store watches the free space of the file system its database file is on (a full disk's health): the
     * directory comes from H2's own name of the database, whatever file system of H2's the URL names.
     */
    @Test
    void theDatabaseFilesDirectoryComesFromH2sOwnPathOfTheDatabase(@TempDir Path directory) throws Exception {
        H2PreallocatedFilePath.register();
        Path real = directory.toRealPath();
        for (String url : new String[] { "jdbc:h2:skail:" + directory.resolve("a"),
                "jdbc:h2:file:" + directory.resolve("b"), "jdbc:h2:" + directory.resolve("c"),
                "jdbc:h2:nio:" + directory.resolve("d") }) {
            try (Connection connection = DriverManager.getConnection(url + ";FILE_LOCK=FS", "sa", "")) {
                String path = H2JdbcCustomization.databasePath(connection);
                Path found = H2JdbcCustomization.directoryOf(path);
                assertThat(found).as(url + " (" + path + ")").isNotNull();
                assertThat(found.toRealPath()).as(url).isEqualTo(real);
            }
        }
        try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:nowhere", "sa", "")) {
            assertThat(H2JdbcCustomization.directoryOf(H2JdbcCustomization.databasePath(connection))).isNull();
        }
        assertThat(H2JdbcCustomization.directoryOf(directory.resolve("missing/e").toString()))
            .as("a directory that is not there").isNull();
    }
}
