package dev.skail.runtime;

import dev.skail.SkailError;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A recorded exception comes back as its own class and message, and only ever as a Throwable. */
class RecordedFailureTests {

    @Test
    void exceptionIsRebuiltWithItsClassAndMessage() {
        Throwable rebuilt = RecordedFailure.rebuild(RecordedFailure.of(new GatewayException("timed out")), null);

        assertThat(rebuilt).isExactlyInstanceOf(GatewayException.class).hasMessage("timed out");
    }

    @Test
    void aClassThatIsNotAThrowableIsNeverInstantiated() {
        SkailError forged = new SkailError("java.lang.ProcessBuilder", "rm -rf /", null);

        Throwable rebuilt = RecordedFailure.rebuild(forged, null);

        assertThat(rebuilt).isExactlyInstanceOf(SkailRecordedException.class)
            .hasMessage("java.lang.ProcessBuilder: rm -rf /");
    }

    @Test
    void aClassThatIsGoneComesBackNamed() {
        Throwable rebuilt = RecordedFailure.rebuild(new SkailError("com.example.RemovedException", "old", null), null);

        assertThat(rebuilt).isExactlyInstanceOf(SkailRecordedException.class)
            .hasMessage("com.example.RemovedException: old");
    }
}
