package dev.skail.platform.jdbc;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link ClaimingTests} on H2 (in memory, several stores in one process), and what only H2 does: a store in a file,
 * which only one process can open, takes back at start what a process that died left running.
 */
class ClaimingOnH2Tests extends ClaimingTests {

    private String url;

    @TempDir
    Path directory;

    @BeforeEach
    void database() {
        freshDatabase();
    }

    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }

    @Override
    int statementsPerClaim() {
        return 2;
    }

    @Override
    String url() {
        return this.url;
    }

    @Override
    void freshDatabase() {
        this.url = "jdbc:h2:mem:claiming-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
    }

    @Test
    void aFileStoreRestartedAfterItsProcessDiedTakesBackWhatWasRunningAtOnce() throws Exception {
        this.url = "jdbc:h2:file:" + this.directory.resolve("skail") + ";FILE_LOCK=FS;WRITE_DELAY=0";
        HikariDataSource before = pool();
        JdbcExecutionStore died = store(before);
        died.initialize();
        died.create(execution("t-1", 0));
        Lease held = died.claimDue("vendas", "v1", "died", 10, 100, 30_100, Set.of()).get(0);
        died.close();
        before.close();

        JdbcExecutionStore restarted = instance();

        // long before the lease ends
        List<Lease> claimed = restarted.claimDue("vendas", "v1", "restarted", 10, 200, 30_200, Set.of());
        assertThat(claimed).extracting(Lease::taskId).containsExactly("t-1");
        // what the process that died would still write is refused
        assertThatExceptionOfType(LeaseLostException.class)
            .isThrownBy(() -> restarted.recordStep(held, step("t-1"), attempt("t-1"), 300, 30_300));
    }

    @Test
    void aClaimHandsOverItsExecutionsInTheOrderTheyFellDue() {
        JdbcExecutionStore store = instance();
        // t-1 fell due last, t-9 first: the order of their keys is the reverse of the order they fell due in
        for (int i = 1; i <= 9; i++) {
            store.create(execution("t-" + i, 100 - 10 * i));
        }

        List<Lease> claimed = store.claimDue("vendas", "v1", "a", 5, 100, 30_100, Set.of());

        // the worker runs them in this order when its threads are fewer than what it claimed
        assertThat(claimed).extracting(Lease::taskId).containsExactly("t-9", "t-8", "t-7", "t-6", "t-5");
    }

    @Test
    void onlyAnEmbeddedFileIsOwnedByOneProcess() {
        assertThat(H2JdbcCustomization.isOwnedByThisProcess("jdbc:h2:file:/data/skail;FILE_LOCK=FS")).isTrue();
        assertThat(H2JdbcCustomization.isOwnedByThisProcess("jdbc:h2:./data/skail")).isTrue();
        assertThat(H2JdbcCustomization.isOwnedByThisProcess("jdbc:h2:mem:skail")).isFalse();
        assertThat(H2JdbcCustomization.isOwnedByThisProcess("jdbc:h2:tcp://db/skail")).isFalse();
        assertThat(H2JdbcCustomization.isOwnedByThisProcess("jdbc:h2:file:/data/skail;AUTO_SERVER=TRUE")).isFalse();
    }
}
